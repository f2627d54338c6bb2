/** Small shared pieces: error box, async loader hook, polling, time formatting. */
import { useCallback, useEffect, useRef, useState } from 'react';

import { ApiError, type Violation } from './api';
import { useI18n } from './i18n';

/** The field violations of an API error, one line each. */
export function Violations({ violations }: { violations?: Violation[] }) {
  if (!violations?.length) return null;
  return (
    <ul>
      {violations.map((v, i) => (
        <li key={i}>
          <code>{v.field}</code>: {v.message}
          {v.expected ? ` — expected ${v.expected}` : ''}
        </li>
      ))}
    </ul>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  return (
    <div className="error" role="alert">
      <strong>
        {t('error')}
        {e ? ` (${e.grpcStatus})` : ''}:
      </strong>{' '}
      {error instanceof Error ? error.message : String(error)}
      <Violations violations={e?.violations} />
    </div>
  );
}

/** Runs `load` on mount and when `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(() => {
    const n = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => n === seq.current && setState({ data, loading: false }),
      (error: unknown) => n === seq.current && setState((s) => ({ ...s, error, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** Calls `tick` now and every `ms` while the page is shown (short polling: the APIs are unary). */
export function usePoll(tick: () => void, ms: number) {
  const ref = useRef(tick);
  ref.current = tick;
  useEffect(() => {
    ref.current();
    const id = setInterval(() => ref.current(), ms);
    return () => clearInterval(id);
  }, [ms]);
}

export const when = (ms?: number) => (ms ? new Date(ms).toLocaleString() : '—');
export const pct = (x?: number) => `${((x ?? 0) * 100).toFixed(1)}%`;
