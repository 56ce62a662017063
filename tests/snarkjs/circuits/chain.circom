pragma circom 2.0.0;
// y = x^(2^N) * k + x: N squarings in a chain; one public input, one output; domain 2^4
template Chain(N) {
  signal input x;
  signal input k;
  signal output y;
  signal s[N + 1];
  s[0] <== x;
  for (var i = 0; i < N; i++) {
    s[i + 1] <== s[i] * s[i];
  }
  y <== s[N] * k + x;
}
component main {public [x]} = Chain(12);
