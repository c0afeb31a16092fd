;; Cosine distances for exact ranking (lib/retrieval/exact-kernel-wasm.ts holds the compiled bytes;
;; `npm run build:kernel` compiles this file again). Vectors are unit length, float32, each row
;; padded with zeros to a multiple of 16 floats; sums are float32, as Chroma's are.
(module
  (memory (import "env" "mem") 1)

  ;; out[r] = 1 - q . row r, for rows [0, rows) of `data`.
  (func (export "scores1") (param $q i32) (param $data i32) (param $rows i32) (param $dim i32) (param $out i32)
    (local $r i32) (local $i i32) (local $p i32) (local $rowBytes i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (i32.add (local.get $q) (local.get $i))) (v128.load (i32.add (local.get $p) (local.get $i))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (i32.add (local.get $q) (local.get $i))) (v128.load offset=16 (i32.add (local.get $p) (local.get $i))))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (i32.add (local.get $q) (local.get $i))) (v128.load offset=32 (i32.add (local.get $p) (local.get $i))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (i32.add (local.get $q) (local.get $i))) (v128.load offset=48 (i32.add (local.get $p) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 64)))
            (br $step)))
        (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.sub (f32.const 1)
            (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
                     (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0))))))
        (local.set $p (i32.add (local.get $p) (local.get $rowBytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

  ;; The same for four queries at once (q, q + dim, q + 2 dim, q + 3 dim), each row read once:
  ;; out[k * rows + r] for query k.
  (func (export "scores4") (param $q i32) (param $data i32) (param $rows i32) (param $dim i32) (param $out i32)
    (local $r i32) (local $i i32) (local $p i32) (local $rowBytes i32) (local $v v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $q1 i32) (local $q2 i32) (local $q3 i32) (local $o i32) (local $outBytes i32)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $q1 (i32.add (local.get $q) (local.get $rowBytes)))
    (local.set $q2 (i32.add (local.get $q1) (local.get $rowBytes)))
    (local.set $q3 (i32.add (local.get $q2) (local.get $rowBytes)))
    (local.set $outBytes (i32.shl (local.get $rows) (i32.const 2)))
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $v) (v128.load (i32.add (local.get $q) (local.get $i))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $v) (v128.load (i32.add (local.get $q1) (local.get $i))))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $v) (v128.load (i32.add (local.get $q2) (local.get $i))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $v) (v128.load (i32.add (local.get $q3) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2))))
        (f32.store (local.get $o) (f32.sub (f32.const 1) (call $sum (local.get $a0))))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (f32.sub (f32.const 1) (call $sum (local.get $a1))))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (f32.sub (f32.const 1) (call $sum (local.get $a2))))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (f32.sub (f32.const 1) (call $sum (local.get $a3))))
        (local.set $p (i32.add (local.get $p) (local.get $rowBytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

  ;; Scales rows [0, rows) of `data` to unit length in place (a row of zeros stays zeros).
  (func (export "normalize") (param $data i32) (param $rows i32) (param $dim i32)
    (local $r i32) (local $i i32) (local $p i32) (local $rowBytes i32) (local $a v128) (local $v v128) (local $n f32) (local $s v128)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $a (f32x4.add (local.get $a) (f32x4.mul (local.get $v) (local.get $v))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step)))
        (local.set $n (call $sum (local.get $a)))
        (if (f32.gt (local.get $n) (f32.const 0))
          (then
            (local.set $s (f32x4.splat (f32.div (f32.const 1) (f32.sqrt (local.get $n)))))
            (local.set $i (i32.const 0))
            (block $end2
              (loop $scale
                (br_if $end2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
                (v128.store (i32.add (local.get $p) (local.get $i))
                  (f32x4.mul (v128.load (i32.add (local.get $p) (local.get $i))) (local.get $s)))
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $scale)))))
        (local.set $p (i32.add (local.get $p) (local.get $rowBytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

;; Approximate cosine distances from rows quantized to int8 (lib/retrieval/exact-kernel.ts,
;; compact tables): row r is `dim` signed bytes whose float value is scale[r] * byte, the query is
;; `dim` i16 values whose float value is $qs * value, small enough that no i32 sum overflows
;; (queryLimit in exact-kernel.ts). out[r] = 1 - $qs * scale[r] *
;; (the integer dot product). The caller bounds the error of each row (exact-kernel.ts).
  (func (export "scoresI8") (param $q i32) (param $data i32) (param $scales i32) (param $rows i32) (param $dim i32) (param $qs f32) (param $out i32)
    (local $r i32) (local $i i32) (local $p i32) (local $v v128) (local $a0 v128) (local $a1 v128)
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $dim)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 1)))))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 1)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (call $distanceI8 (local.get $qs) (f32.load (i32.add (local.get $scales) (i32.shl (local.get $r) (i32.const 2))))
            (i32x4.add (local.get $a0) (local.get $a1))))
        (local.set $p (i32.add (local.get $p) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

;; The same for four queries at once (i16 values at q, q + 2 dim, q + 4 dim and q + 6 dim bytes,
;; scales $qs0 to $qs3): each row's bytes are read and widened once for the four, which is most of
;; a query's cost alone. out[k * rows + r] for query k, equal to what scoresI8 gives it (a zero
;; query with scale 0 fills an unused place). Integer sums are exact in any order.
  (func (export "scores4I8") (param $q i32) (param $data i32) (param $scales i32) (param $rows i32) (param $dim i32)
    (param $qs0 f32) (param $qs1 f32) (param $qs2 f32) (param $qs3 f32) (param $out i32)
    (local $r i32) (local $i i32) (local $j i32) (local $p i32) (local $v v128) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $q1 i32) (local $q2 i32) (local $q3 i32) (local $o i32) (local $outBytes i32) (local $sc f32)
    (local.set $q1 (i32.add (local.get $q) (i32.shl (local.get $dim) (i32.const 1))))
    (local.set $q2 (i32.add (local.get $q1) (i32.shl (local.get $dim) (i32.const 1))))
    (local.set $q3 (i32.add (local.get $q2) (i32.shl (local.get $dim) (i32.const 1))))
    (local.set $outBytes (i32.shl (local.get $rows) (i32.const 2)))
    (local.set $p (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $dim)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $lo (i16x8.extend_low_i8x16_s (local.get $v)))
            (local.set $hi (i16x8.extend_high_i8x16_s (local.get $v)))
            (local.set $j (i32.shl (local.get $i) (i32.const 1)))
            (local.set $a0 (i32x4.add (local.get $a0) (i32x4.add
              (i32x4.dot_i16x8_s (local.get $lo) (v128.load (i32.add (local.get $q) (local.get $j))))
              (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=16 (i32.add (local.get $q) (local.get $j)))))))
            (local.set $a1 (i32x4.add (local.get $a1) (i32x4.add
              (i32x4.dot_i16x8_s (local.get $lo) (v128.load (i32.add (local.get $q1) (local.get $j))))
              (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=16 (i32.add (local.get $q1) (local.get $j)))))))
            (local.set $a2 (i32x4.add (local.get $a2) (i32x4.add
              (i32x4.dot_i16x8_s (local.get $lo) (v128.load (i32.add (local.get $q2) (local.get $j))))
              (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=16 (i32.add (local.get $q2) (local.get $j)))))))
            (local.set $a3 (i32x4.add (local.get $a3) (i32x4.add
              (i32x4.dot_i16x8_s (local.get $lo) (v128.load (i32.add (local.get $q3) (local.get $j))))
              (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=16 (i32.add (local.get $q3) (local.get $j)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step)))
        (local.set $sc (f32.load (i32.add (local.get $scales) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2))))
        (f32.store (local.get $o) (call $distanceI8 (local.get $qs0) (local.get $sc) (local.get $a0)))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (call $distanceI8 (local.get $qs1) (local.get $sc) (local.get $a1)))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (call $distanceI8 (local.get $qs2) (local.get $sc) (local.get $a2)))
        (local.set $o (i32.add (local.get $o) (local.get $outBytes)))
        (f32.store (local.get $o) (call $distanceI8 (local.get $qs3) (local.get $sc) (local.get $a3)))
        (local.set $p (i32.add (local.get $p) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

;; Quantizes rows for a compact table (lib/retrieval/exact-kernel.ts): rows [0, rows) of `src`,
;; float32 and padded with zeros to `dim`, scaled to unit length become `dim` signed bytes each at
;; `data`, with scale[r] = fround(max|v| / norm / 127) and byte = clamp(round(v / (scale * norm)),
;; -127, 127), as quantizeRow does in JavaScript (ties may round the other way: here to even).
;; errors[r] is the Euclidean distance between the unit row and its bytes times the scale, in
;; float64, times (1 + 1e-6) so that its float32 form is not below it. A row of zeros gets scale 0,
;; error 0 and zero bytes.
  (func (export "quantizeI8") (param $src i32) (param $rows i32) (param $dim i32) (param $data i32) (param $scales i32) (param $errors i32)
    (local $r i32) (local $i i32) (local $p i32) (local $o i32) (local $rowBytes i32)
    (local $v v128) (local $lo v128) (local $hi v128) (local $mx v128) (local $s0 v128) (local $s1 v128)
    (local $b0 v128) (local $b1 v128) (local $e v128) (local $inv v128) (local $invNorm v128) (local $sc v128)
    (local $max f64) (local $norm f64) (local $scale f32)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $p (local.get $src))
    (local.set $o (local.get $data))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        ;; The largest magnitude and the sum of squares (a float32's square is exact in float64).
        (local.set $mx (v128.const f32x4 0 0 0 0))
        (local.set $s0 (v128.const f64x2 0 0))
        (local.set $s1 (v128.const f64x2 0 0))
        (local.set $i (i32.const 0))
        (block $end
          (loop $step
            (br_if $end (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $mx (f32x4.pmax (local.get $mx) (f32x4.abs (local.get $v))))
            (local.set $lo (f64x2.promote_low_f32x4 (local.get $v)))
            (local.set $hi (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))))
            (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $lo) (local.get $lo))))
            (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (local.get $hi) (local.get $hi))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step)))
        (local.set $max (f64.promote_f32
          (f32.max (f32.max (f32x4.extract_lane 0 (local.get $mx)) (f32x4.extract_lane 1 (local.get $mx)))
                   (f32.max (f32x4.extract_lane 2 (local.get $mx)) (f32x4.extract_lane 3 (local.get $mx))))))
        (local.set $s0 (f64x2.add (local.get $s0) (local.get $s1)))
        (local.set $norm (f64.sqrt (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0)))))
        ;; A row of zeros: every factor 0, so its bytes and error come out 0 below.
        (local.set $scale (f32.const 0))
        (local.set $inv (v128.const f64x2 0 0))
        (local.set $invNorm (v128.const f64x2 0 0))
        (if (f64.gt (local.get $max) (f64.const 0))
          (then
            (local.set $scale (f32.demote_f64 (f64.div (f64.div (local.get $max) (local.get $norm)) (f64.const 127))))
            (local.set $inv (f64x2.splat (f64.div (f64.const 1) (f64.mul (f64.promote_f32 (local.get $scale)) (local.get $norm)))))
            (local.set $invNorm (f64x2.splat (f64.div (f64.const 1) (local.get $norm))))))
        (local.set $sc (f64x2.splat (f64.promote_f32 (local.get $scale))))
        (f32.store (i32.add (local.get $scales) (i32.shl (local.get $r) (i32.const 2))) (local.get $scale))
        ;; Four components a step: bytes rounded in float64, the error of each summed in float64 (the
        ;; unit row taken as v * (1 / norm), within a rounding of v / norm).
        (local.set $s0 (v128.const f64x2 0 0))
        (local.set $s1 (v128.const f64x2 0 0))
        (local.set $i (i32.const 0))
        (block $end2
          (loop $step2
            (br_if $end2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $v (v128.load (i32.add (local.get $p) (local.get $i))))
            (local.set $lo (f64x2.promote_low_f32x4 (local.get $v)))
            (local.set $hi (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v))))
            (local.set $b0 (f64x2.pmin (f64x2.pmax (f64x2.nearest (f64x2.mul (local.get $lo) (local.get $inv))) (v128.const f64x2 -127 -127)) (v128.const f64x2 127 127)))
            (local.set $b1 (f64x2.pmin (f64x2.pmax (f64x2.nearest (f64x2.mul (local.get $hi) (local.get $inv))) (v128.const f64x2 -127 -127)) (v128.const f64x2 127 127)))
            (local.set $e (f64x2.sub (f64x2.mul (local.get $lo) (local.get $invNorm)) (f64x2.mul (local.get $b0) (local.get $sc))))
            (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $e) (local.get $e))))
            (local.set $e (f64x2.sub (f64x2.mul (local.get $hi) (local.get $invNorm)) (f64x2.mul (local.get $b1) (local.get $sc))))
            (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (local.get $e) (local.get $e))))
            ;; The four bytes: both pairs as i32 lanes, narrowed to i16 then i8 (within -127..127 already).
            (local.set $v (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
              (i32x4.trunc_sat_f64x2_s_zero (local.get $b0)) (i32x4.trunc_sat_f64x2_s_zero (local.get $b1))))
            (local.set $v (i16x8.narrow_i32x4_s (local.get $v) (local.get $v)))
            (local.set $v (i8x16.narrow_i16x8_s (local.get $v) (local.get $v)))
            (i32.store (i32.add (local.get $o) (i32.shr_u (local.get $i) (i32.const 2))) (i32x4.extract_lane 0 (local.get $v)))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $step2)))
        (local.set $s0 (f64x2.add (local.get $s0) (local.get $s1)))
        (f32.store (i32.add (local.get $errors) (i32.shl (local.get $r) (i32.const 2)))
          (f32.demote_f64 (f64.mul
            (f64.sqrt (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
            (f64.const 1.000001))))
        (local.set $p (i32.add (local.get $p) (local.get $rowBytes)))
        (local.set $o (i32.add (local.get $o) (local.get $dim)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row)))
  )

;; 1 - $qs * $scale * (the lanes of $a summed): one i8 distance, in the one order both kernels use.
  (func $distanceI8 (param $qs f32) (param $scale f32) (param $a v128) (result f32)
    (f32.sub (f32.const 1)
      (f32.mul (f32.mul (local.get $qs) (local.get $scale))
        (f32.convert_i32_s
          (i32.add (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
                   (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a))))))))

  (func $sum (param $a v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
             (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
)
