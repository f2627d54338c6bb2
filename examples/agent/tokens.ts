/** Exact token counts for the printout: o200k_base (GPT-4o, GPT-4.1, o-series) with js-tiktoken, offline. */
import type { TokenCounter } from '@toolhub/agent-kit';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

/** A counter over o200k_base (loading the ranks takes about a second, once). */
export function o200kCounter(): TokenCounter {
  const enc = new Tiktoken(o200kBase);
  return (text) => enc.encode(text).length;
}
