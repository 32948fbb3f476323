// The executable that owns the gateway tests' precompiled header (tests/support/CMakeLists.txt):
// it is built for the header, and does nothing.
int main() { return 0; }
