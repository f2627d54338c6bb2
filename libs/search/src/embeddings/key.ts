/** The key a text's vector is stored under. */
import { createHash } from 'node:crypto';

/** The storage key of a text's vector under `model`: a SHA-256 of both, so a changed text or model is a new key. */
export function embeddingKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\n').update(text).digest('base64url').slice(0, 32);
}
