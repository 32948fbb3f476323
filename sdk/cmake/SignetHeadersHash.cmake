# signet_headers_hash(DIR OUT_VAR): a digest of the SDK's public headers in DIR/signet (every
# *.hpp, by name and content, in name order), the first 16 hex digits of their SHA-256. It goes
# into every plugin's build signature (signet/version.hpp), so that a plugin built against
# headers that differ in any way (a member added to a struct plugin.hpp passes by value, a
# std::function in a services struct) is refused at load, naming the field, instead of reading
# a struct of another layout. Derived, not remembered: no number to bump by hand.
function(signet_headers_hash dir out_var)
  file(GLOB headers RELATIVE ${dir} ${dir}/signet/*.hpp)
  list(SORT headers)
  set(all "")
  foreach(header ${headers})
    file(READ ${dir}/${header} content)
    string(APPEND all "${header}\n${content}\n")
  endforeach()
  string(SHA256 digest "${all}")
  string(SUBSTRING ${digest} 0 16 digest)
  set(${out_var} ${digest} PARENT_SCOPE)
endfunction()
