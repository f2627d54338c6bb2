/**
 * Register a tool: the design's fields, sent to RegisterTool; the registry's field violations appear
 * beside the fields they name. Also: upload of a catalog file (tools, or an overlays file).
 */
import { type ChangeEvent, type FormEvent, useState } from 'react';

import { ApiError, call, type Violation } from '../api';
import { ErrorBox } from '../common';
import { useI18n } from '../i18n';
import type { ToolInfo } from '../types';

const FIELDS = ['provider', 'name', 'path', 'description', 'inputSchema', 'outputDescription', 'examples', 'tags'] as const;
type Field = (typeof FIELDS)[number];
const LABELS: Record<Field, Parameters<ReturnType<typeof useI18n>['t']>[0]> = {
  provider: 'reg.provider',
  name: 'reg.name',
  path: 'reg.path',
  description: 'reg.description',
  inputSchema: 'reg.inputSchema',
  outputDescription: 'reg.output',
  examples: 'reg.examples',
  tags: 'reg.tags',
};
const MULTILINE = new Set<Field>(['description', 'inputSchema', 'examples']);
const START: Record<Field, string> = {
  provider: '',
  name: '',
  path: '',
  description: '',
  inputSchema: '{\n  "type": "object",\n  "properties": {},\n  "required": []\n}',
  outputDescription: '',
  examples: '[\n  { "description": "", "arguments": {}, "result": "" }\n]',
  tags: '',
};

/** Which form field a violation names: `tool.name` → name, `tool.input_schema…` → inputSchema. */
function fieldOf(v: Violation): Field | undefined {
  const raw = v.field.replace(/^tools?\[?\d*\]?\./, '').split(/[.[/]/)[0] ?? '';
  const camel = raw.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return (FIELDS as readonly string[]).includes(camel) ? (camel as Field) : camel === 'id' ? 'name' : undefined;
}

export function RegisterPage() {
  const { t } = useI18n();
  const [values, setValues] = useState<Record<Field, string>>(START);
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<ToolInfo>();
  const [upload, setUpload] = useState<string[]>([]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(undefined);
    setError(undefined);
    const local: Partial<Record<Field, string>> = {};
    const parse = (f: Field) => {
      try {
        return JSON.parse(values[f]) as unknown;
      } catch (err) {
        local[f] = `${t('reg.notJson')}: ${(err as Error).message}`;
        return undefined;
      }
    };
    const inputSchema = parse('inputSchema');
    const examples = parse('examples');
    setFieldErrors(local);
    if (Object.keys(local).length) return;
    const tool = {
      provider: values.provider.trim(),
      name: values.name.trim(),
      path: values.path.trim(),
      description: values.description,
      inputSchema,
      outputDescription: values.outputDescription,
      examples,
      tags: values.tags
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    };
    call<{ tool?: ToolInfo }>('admin', 'RegisterTool', { tool }).then(
      (r) => {
        setDone(r.tool);
        setFieldErrors({});
      },
      (err: unknown) => {
        const byField: Partial<Record<Field, string>> = {};
        const rest: Violation[] = [];
        for (const v of err instanceof ApiError ? err.violations : []) {
          const f = fieldOf(v);
          if (f) byField[f] = `${v.message}${v.expected ? ` — expected ${v.expected}` : ''}${v.example ? `, e.g. ${v.example}` : ''}`;
          else rest.push(v);
        }
        setFieldErrors(byField);
        setError(err);
      },
    );
  };

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    const lines: string[] = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined; // YAML: only the overlays format is YAML
    }
    const tools = (parsed as { tools?: unknown } | undefined)?.tools;
    try {
      if (Array.isArray(tools)) {
        for (const tool of tools as ToolInfo[]) {
          try {
            await call('admin', 'RegisterTool', { tool });
            lines.push(`✓ ${tool.provider}:${tool.name}`);
          } catch (err) {
            lines.push(`✗ ${tool.provider}:${tool.name}: ${(err as Error).message}`);
          }
        }
      } else {
        const format = parsed === undefined ? 'yaml' : 'json';
        const dry = await call<{ messages?: string[] }>('admin', 'ImportOverlays', { content: text, format, dryRun: true });
        lines.push(...(dry.messages ?? []).map((m) => `dry run: ${m}`));
        const r = await call<{ toolsChanged?: number; preloadListChanged?: boolean }>('admin', 'ImportOverlays', { content: text, format, dryRun: false });
        lines.push(`✓ ImportOverlays: ${r.toolsChanged ?? 0} tools changed${r.preloadListChanged ? ', preload list changed' : ''}`);
      }
    } catch (err) {
      lines.push(`✗ ${(err as Error).message}`);
    }
    setUpload(lines);
    e.target.value = '';
  };

  return (
    <>
      <h1>{t('reg.title')}</h1>
      <p>{t('reg.help')}</p>
      <form onSubmit={submit} noValidate data-testid="register-form">
        {FIELDS.map((f) => {
          const id = `reg-${f}`;
          const err = fieldErrors[f];
          const common = {
            id,
            value: values[f],
            'aria-invalid': err ? true : undefined,
            'aria-describedby': err ? `${id}-error` : undefined,
            onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setValues({ ...values, [f]: e.target.value }),
          };
          return (
            <div className="field" key={f}>
              <label htmlFor={id}>{t(LABELS[f])}</label>
              {MULTILINE.has(f) ? <textarea rows={f === 'description' ? 3 : 6} {...common} /> : <input {...common} />}
              {err && (
                <span className="field-error" id={`${id}-error`} data-testid={`error-${f}`}>
                  {err}
                </span>
              )}
            </div>
          );
        })}
        <button type="submit">{t('reg.submit')}</button>
      </form>
      <ErrorBox error={error} />
      {done && (
        <p className="ok" role="status" data-testid="registered">
          {t('reg.done')}: <a href={`#/tool/${encodeURIComponent(done.provider)}/${encodeURIComponent(done.name)}`}>{done.id}</a> ({done.version})
        </p>
      )}
      <section>
        <h2>{t('reg.upload')}</h2>
        <p>{t('reg.uploadHelp')}</p>
        <label htmlFor="catalog-file" className="sr-only">
          {t('reg.upload')}
        </label>
        <input id="catalog-file" type="file" accept=".json,.yaml,.yml" onChange={(e) => void onFile(e)} />
        {upload.length > 0 && (
          <ul className="plain" data-testid="upload-result">
            {upload.map((l, i) => (
              <li key={i}>{l}</li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
