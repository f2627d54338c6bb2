/** Builds the OpenTelemetry resource (who emits the spans) from options and the environment. */
import { randomUUID } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';

/** Environment map as `process.env` has it. */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/** What identifies a service in the resource. */
export interface ResourceInput {
  serviceName: string;
  serviceVersion?: string;
  attributes?: Attributes;
  env: EnvMap;
}

/**
 * Resource = SDK defaults < `OTEL_RESOURCE_ATTRIBUTES` < ToolHub's service attributes < explicit
 * `attributes`. `OTEL_SERVICE_NAME` is deliberately not read: the caller's `serviceName` is an
 * explicit option and explicit options win over the environment in ToolHub.
 */
export function buildResource(input: ResourceInput): Resource {
  const service: Attributes = {
    'service.name': input.serviceName,
    'service.namespace': 'toolhub',
    // Tells replicas (and restarts) apart in a trace backend.
    'service.instance.id': randomUUID(),
  };
  if (input.serviceVersion) service['service.version'] = input.serviceVersion;
  return defaultResource()
    .merge(resourceFromAttributes(parseResourceAttributes(input.env['OTEL_RESOURCE_ATTRIBUTES'])))
    .merge(resourceFromAttributes(service))
    .merge(resourceFromAttributes(input.attributes ?? {}));
}

/**
 * Parses `OTEL_RESOURCE_ATTRIBUTES` (`key1=value1,key2=value2`, values percent-encoded) as the
 * OpenTelemetry specification describes it. Malformed pairs are skipped, as the spec allows,
 * rather than failing start-up over a cosmetic attribute.
 */
export function parseResourceAttributes(raw: string | undefined): Attributes {
  const out: Attributes = {};
  if (!raw) return out;
  for (const pair of raw.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    try {
      out[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // Bad percent-encoding: skip this pair only.
    }
  }
  return out;
}
