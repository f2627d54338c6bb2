;; Dot products of one query with every row of a matrix, 4 lanes x 4 accumulators at a time
;; (WebAssembly SIMD). Rows are `stride` floats apart, `stride` a multiple of 16 (rows padded
;; with zeros). Compiled to dot-scores.wasm.ts by scripts/gen-wasm.mjs.
(module
  (memory (export "memory") 1)
  ;; out[r] = sum_j m[r*stride + j] * q[j]  for r in [0, rows)
  (func (export "scores") (param $m i32) (param $q i32) (param $rows i32) (param $stride i32) (param $out i32)
    (local $r i32) (local $j i32) (local $row i32) (local $bytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $row (local.get $m))
    (block $done
      (loop $rowsLoop
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $j) (local.get $bytes)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul
              (v128.load (i32.add (local.get $row) (local.get $j)))
              (v128.load (i32.add (local.get $q) (local.get $j))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul
              (v128.load offset=16 (i32.add (local.get $row) (local.get $j)))
              (v128.load offset=16 (i32.add (local.get $q) (local.get $j))))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul
              (v128.load offset=32 (i32.add (local.get $row) (local.get $j)))
              (v128.load offset=32 (i32.add (local.get $q) (local.get $j))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul
              (v128.load offset=48 (i32.add (local.get $row) (local.get $j)))
              (v128.load offset=48 (i32.add (local.get $q) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 64)))
            (br $cols)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rowsLoop))))
)
