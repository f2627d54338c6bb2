#!/usr/bin/env node
/**
 * Puts one of the jar-published ONNX models of jar-models.json into a model folder for
 * OnnxEmbeddings (libs/search): downloads the langchain4j jar from Maven Central once (kept in
 * ~/.cache/toolhub/jars, or TOOLHUB_JARS_DIR), refuses it unless its SHA-256 is the pinned one,
 * and unpacks model.onnx, tokenizer.json, tokenizer_config.json and toolhub-model.json (the card:
 * pooling, prefixes, dimensions). Offline once the jar is cached; a second run with the same
 * folder does nothing.
 *
 *   node scripts/embeddings/fetch-jar-model.mjs <model> <folder>     (bash scripts/services.sh embeddings-model calls it)
 *   node scripts/embeddings/fetch-jar-model.mjs --list               (the model names)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const { models } = JSON.parse(readFileSync(join(here, 'jar-models.json'), 'utf8'));
const MAVEN = process.env.TOOLHUB_MAVEN_URL || 'https://repo1.maven.org/maven2';

function die(msg) {
  console.error(`fetch-jar-model: ${msg}`);
  process.exit(1);
}

/** The named entries of a zip (a jar) held in memory: central directory, stored or deflated. */
export function unzipEntries(zip, names) {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out = new Map();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('corrupt central directory');
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const rawSize = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (!names.includes(name)) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    const body = method === 0 ? data : method === 8 ? inflateRawSync(data) : undefined;
    if (!body || body.length !== rawSize) throw new Error(`cannot unpack ${name} (method ${method})`);
    out.set(name, body);
  }
  for (const name of names) if (!out.has(name)) throw new Error(`the jar holds no ${name}`);
  return out;
}

async function jar(spec) {
  const dir = process.env.TOOLHUB_JARS_DIR || join(homedir(), '.cache/toolhub/jars');
  const file = join(dir, `${spec.artifact}-${spec.version}.jar`);
  const sha = (buf) => createHash('sha256').update(buf).digest('hex');
  if (existsSync(file)) {
    const buf = readFileSync(file);
    if (sha(buf) === spec.sha256) return buf;
    console.error(`fetch-jar-model: ${file} does not match its pinned SHA-256; downloading it again`);
  }
  const url = `${MAVEN}/dev/langchain4j/${spec.artifact}/${spec.version}/${spec.artifact}-${spec.version}.jar`;
  console.error(`fetch-jar-model: downloading ${url}`);
  let res;
  try {
    res = await fetch(url);
  } catch (err) {
    die(`cannot reach ${url}: ${err.cause?.message ?? err.message} (set TOOLHUB_MAVEN_URL to a mirror, or put the jar in ${dir})`);
  }
  if (!res.ok) die(`${url} answered HTTP ${res.status}`);
  const buf = Buffer.from(await res.arrayBuffer());
  const got = sha(buf);
  if (got !== spec.sha256) die(`${url} has SHA-256 ${got}, not the pinned ${spec.sha256}; refusing it`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.part`, buf);
  renameSync(`${file}.part`, file);
  return buf;
}

/** BERT's uncased tokenizer settings: the jars' tokenizer.json lowercases (BertNormalizer), as these match. */
const TOKENIZER_CONFIG = { do_lower_case: true, unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]', tokenize_chinese_chars: true, strip_accents: null, tokenizer_class: 'BertTokenizer', model_max_length: 512 };

async function main() {
  const [model, out] = process.argv.slice(2);
  if (model === '--list') return console.log(Object.keys(models).join('\n'));
  const spec = models[model];
  if (!spec || !out) die(`usage: fetch-jar-model.mjs <model> <folder>; models: ${Object.keys(models).join(', ')}`);
  const card = { model, dimensions: spec.dimensions, maxTokens: spec.maxTokens, pooling: spec.pooling, queryPrefix: spec.queryPrefix, documentPrefix: spec.documentPrefix, jar: `dev.langchain4j:${spec.artifact}:${spec.version}`, jarSha256: spec.sha256, source: spec.source, license: spec.license };
  const cardFile = join(out, 'toolhub-model.json');
  if (existsSync(cardFile) && existsSync(join(out, 'model.onnx')) && readFileSync(cardFile, 'utf8') === `${JSON.stringify(card, null, 2)}\n`) return;
  const entries = unzipEntries(await jar(spec), [spec.onnx, spec.tokenizer]);
  const tokenizer = JSON.parse(entries.get(spec.tokenizer).toString('utf8'));
  if (tokenizer.model?.type !== 'WordPiece' || tokenizer.normalizer?.lowercase !== true) die(`${spec.tokenizer} is not an uncased WordPiece tokenizer; OnnxEmbeddings expects one`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'model.onnx'), entries.get(spec.onnx));
  writeFileSync(join(out, 'tokenizer.json'), entries.get(spec.tokenizer));
  writeFileSync(join(out, 'tokenizer_config.json'), `${JSON.stringify(TOKENIZER_CONFIG)}\n`);
  // The card last: its presence says the folder is complete.
  writeFileSync(cardFile, `${JSON.stringify(card, null, 2)}\n`);
  console.error(`fetch-jar-model: ${model} unpacked into ${out}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
