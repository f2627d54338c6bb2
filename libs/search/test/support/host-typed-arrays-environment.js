/**
 * Jest's node environment with the host's typed-array constructors. onnxruntime-node's native code
 * creates its output arrays in the host realm, and onnxruntime-common checks them with
 * `instanceof Float32Array` in the test's realm, which fails under Jest's per-file sandbox (it
 * never does in a plain Node process). Used by tests that run the in-process model.
 */
const { TestEnvironment } = require('jest-environment-node');

const TYPED = ['Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array', 'ArrayBuffer'];

class HostTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED) this.global[name] = globalThis[name];
  }
}

module.exports = HostTypedArraysEnvironment;
