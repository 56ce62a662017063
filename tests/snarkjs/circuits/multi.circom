pragma circom 2.0.0;
// two outputs, two public inputs, private inputs, a range-checked bit decomposition
// (many constraints with constants, so A and B carry coefficients other than 1); domain 2^5
template Multi(NB) {
  signal input p;
  signal input q;
  signal input u;
  signal input v;
  signal output sum;
  signal output prod;
  signal bits[NB];
  var acc = 0;
  for (var i = 0; i < NB; i++) {
    bits[i] <-- (u >> i) & 1;
    bits[i] * (bits[i] - 1) === 0;
    acc += bits[i] * (1 << i);
  }
  acc === u;
  signal t;
  t <== (p + 3 * u) * (q - v);
  sum <== t + p + q;
  prod <== t * v;
}
component main {public [p, q]} = Multi(16);
