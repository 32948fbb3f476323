# Every dependency comes from a Debian package; scripts/setup.sh installs them.
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SECP256K1 REQUIRED IMPORTED_TARGET libsecp256k1)
pkg_check_modules(CBOR REQUIRED IMPORTED_TARGET libcbor)

# The store speaks to SQLite and libpq directly (gateway/store/): Poco Data re-parsed every
# statement on every call and could not keep prepared statements across calls.
find_package(SQLite3 REQUIRED)
find_package(PostgreSQL REQUIRED)
find_package(Poco REQUIRED COMPONENTS Foundation Net NetSSL JSON Util JWT Crypto)
find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)
find_package(GTest REQUIRED)
# The signet binary's allocator (gateway/CMakeLists.txt); ASan brings its own.
if(NOT SIGNET_SANITIZE)
  find_package(mimalloc 2 REQUIRED)
endif()

# PKCS#11's types and function list (the master key in an HSM): p11-kit's copy of the standard
# header. No library is linked; the token's own module is loaded when the config names it.
find_path(P11KIT_INCLUDE_DIR p11-kit/pkcs11.h PATH_SUFFIXES p11-kit-1 REQUIRED)
