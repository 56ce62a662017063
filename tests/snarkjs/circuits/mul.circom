pragma circom 2.0.0;
// out = a*b*c + a, a public: the intermediate ab is in C of one constraint and A of
// the next; domain 2^3
template Mul3() {
  signal input a;
  signal input b;
  signal input c;
  signal ab;
  signal output out;
  ab <== a * b;
  out <== ab * c + a;
}
component main {public [a]} = Mul3();
