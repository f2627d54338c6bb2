/**
 * The "try it" form: one field per schema property, or raw JSON; runs the tool through RunTool and
 * shows what the agent would see, or starts it as an async run (StartRun) and opens the run's page.
 */
import { type FormEvent, useState } from 'react';

import { call } from '../api';
import { ErrorBox } from '../common';
import { useI18n } from '../i18n';
import type { Json } from '../types';

interface Prop {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
}
interface RunResult {
  status?: string;
  content?: Array<{ text?: string; json?: unknown }>;
  error?: { code?: string; message?: string; violations?: Array<{ field: string; message: string }>; suggestions?: string[] };
  fixes?: Array<{ field?: string; description?: string }>;
  attempts?: number;
  servedBy?: string;
  latencyMs?: number;
  structured?: unknown;
}

const typeOf = (p: Prop) => (Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type) ?? 'string';

/** Form values → arguments: numbers and booleans typed, JSON fields parsed, empty fields left out. */
function argumentsOf(props: Record<string, Prop>, values: Record<string, string | boolean>): Json {
  const args: Json = {};
  for (const [n, p] of Object.entries(props)) {
    const v = values[n];
    if (v === undefined || v === '') continue;
    const ty = typeOf(p);
    if (ty === 'boolean') args[n] = Boolean(v);
    else if ((ty === 'integer' || ty === 'number') && typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) args[n] = Number(v);
    else if ((ty === 'object' || ty === 'array') && typeof v === 'string') {
      try {
        args[n] = JSON.parse(v);
      } catch {
        args[n] = v; // sent as typed: ToolHub's repair or error shows what it makes of it
      }
    } else args[n] = v;
  }
  return args;
}

export function ArgumentsForm({ provider, name, schema, onRan }: { provider: string; name: string; schema?: Json; onRan?: () => void }) {
  const { t } = useI18n();
  const props = (schema?.['properties'] ?? {}) as Record<string, Prop>;
  const required = new Set((schema?.['required'] as string[] | undefined) ?? []);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [raw, setRaw] = useState<string>();
  const [result, setResult] = useState<RunResult>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (n: string, v: string | boolean) => {
    setValues((old) => ({ ...old, [n]: v }));
    setRaw(undefined);
  };
  const argsJson = raw ?? JSON.stringify(argumentsOf(props, values), null, 2);

  const parsedArgs = (): { args?: unknown } => {
    try {
      return { args: JSON.parse(argsJson) };
    } catch (err) {
      setError(new Error(`Arguments ${t('reg.notJson')}: ${(err as Error).message}`));
      return {};
    }
  };

  const run = (e: FormEvent) => {
    e.preventDefault();
    const { args } = parsedArgs();
    if (args === undefined) return;
    setBusy(true);
    setError(undefined);
    call<RunResult>('agent', 'RunTool', { provider, name, arguments: args, caller: 'console' })
      .then(setResult, (err: unknown) => {
        setResult(undefined);
        setError(err);
      })
      .finally(() => {
        setBusy(false);
        onRan?.();
      });
  };

  // StartRun: queued at once; its page follows progress, log and result live (WatchRun).
  const startAsync = () => {
    const { args } = parsedArgs();
    if (args === undefined) return;
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    call<{ run?: { runId: string } }>('agent', 'StartRun', { call: { provider, name, arguments: args, caller: 'console' } })
      .then((r) => {
        if (r.run) location.hash = `#/run/${encodeURIComponent(r.run.runId)}`;
      }, setError)
      .finally(() => setBusy(false));
  };

  return (
    <form onSubmit={run} className="try-it" data-testid="try-it">
      {Object.entries(props).map(([n, p]) => {
        const ty = typeOf(p);
        const id = `arg-${n}`;
        return (
          <div className="field" key={n}>
            <label htmlFor={id}>
              {n}
              {required.has(n) ? ' *' : ''} <span className="muted">({ty})</span>
            </label>
            {p.enum ? (
              <select id={id} value={String(values[n] ?? '')} onChange={(e) => set(n, e.target.value)}>
                <option value="">—</option>
                {p.enum.map((o) => (
                  <option key={String(o)} value={String(o)}>
                    {String(o)}
                  </option>
                ))}
              </select>
            ) : ty === 'boolean' ? (
              <input id={id} type="checkbox" checked={Boolean(values[n])} onChange={(e) => set(n, e.target.checked)} />
            ) : ty === 'object' || ty === 'array' ? (
              <textarea id={id} rows={3} value={String(values[n] ?? '')} onChange={(e) => set(n, e.target.value)} />
            ) : (
              <input id={id} type={ty === 'integer' || ty === 'number' ? 'number' : 'text'} value={String(values[n] ?? '')} onChange={(e) => set(n, e.target.value)} />
            )}
            {p.description ? <span className="hint">{p.description}</span> : null}
          </div>
        );
      })}
      <div className="field">
        <label htmlFor="raw-args">{t('tool.rawJson')}</label>
        <textarea id="raw-args" rows={4} value={argsJson} onChange={(e) => setRaw(e.target.value)} />
      </div>
      <div className="inline">
        <button type="submit" disabled={busy}>
          {t('tool.run')}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={startAsync} aria-describedby="start-async-help">
          {t('runs.startAsync')}
        </button>
        <span id="start-async-help" className="hint">
          {t('runs.startHelp')}
        </span>
      </div>
      <ErrorBox error={error} />
      {result && (
        <div className="result" data-testid="run-result" aria-live="polite">
          <h3>{t('tool.result')}</h3>
          <p>
            <strong>{result.status}</strong> · {result.latencyMs ?? 0} ms · {result.servedBy} · attempts {result.attempts ?? 1}
          </p>
          {(result.fixes ?? []).length > 0 && (
            <>
              <h4>{t('tool.repairs')}</h4>
              <ul data-testid="repairs">
                {(result.fixes ?? []).map((f, i) => (
                  <li key={i}>
                    <code>{f.field}</code> {f.description}
                  </li>
                ))}
              </ul>
            </>
          )}
          {result.error && (
            <div className="error">
              <strong>{result.error.code}</strong>: {result.error.message}
              <ul>
                {(result.error.violations ?? []).map((v, i) => (
                  <li key={i}>
                    <code>{v.field}</code>: {v.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {(result.content ?? []).map((c, i) => (
            <pre key={i}>{c.text ?? JSON.stringify(c.json ?? c, null, 2)}</pre>
          ))}
          {result.structured !== undefined && <pre>{JSON.stringify(result.structured, null, 2)}</pre>}
        </div>
      )}
    </form>
  );
}
