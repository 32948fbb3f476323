# signet_add_plugin(NAME [OUTPUT_DIRECTORY DIR] SOURCES...): a Signet plugin, the shared library
# libsignet-plugin-NAME.so that the gateway looks for in its plugin directory, built against
# the SDK (Signet::sdk) with C++20 and hidden symbols (SIGNET_PLUGIN exports the two the gateway
# needs). The same function builds the plugins in Signet's own tree and, installed beside
# SignetConfig.cmake, plugins built out of tree.
function(signet_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT name MATCHES "^[a-z0-9-]+$")
    message(FATAL_ERROR "signet_add_plugin: '${name}' is not a plugin name (lower-case letters, digits and '-')")
  endif()
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "signet_add_plugin(${name}): no sources")
  endif()
  set(target signet-plugin-${name})
  add_library(${target} MODULE ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PRIVATE Signet::sdk)
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES PREFIX "lib" CXX_EXTENSIONS OFF
                                             CXX_VISIBILITY_PRESET hidden)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
endfunction()
