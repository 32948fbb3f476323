// A shared library with the plugin file name but no descriptor in the "signet" section.
extern "C" int not_a_signet_plugin() {
  return 42;
}
