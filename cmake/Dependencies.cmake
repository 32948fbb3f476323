# Every dependency comes from a Debian package; scripts/setup.sh installs them.
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(SECP256K1 REQUIRED IMPORTED_TARGET libsecp256k1)
pkg_check_modules(CBOR REQUIRED IMPORTED_TARGET libcbor)

# Debian's PocoDataPostgreSQLConfig.cmake links PostgreSQL::client, which nothing
# defines: give it one that points at libpq before Poco is looked up.
find_package(PostgreSQL REQUIRED)
if(NOT TARGET PostgreSQL::client)
  add_library(PostgreSQL::client INTERFACE IMPORTED)
  target_link_libraries(PostgreSQL::client INTERFACE PostgreSQL::PostgreSQL)
endif()
find_package(Poco REQUIRED COMPONENTS Foundation Net NetSSL JSON Data DataSQLite
             DataPostgreSQL Util JWT Crypto)
find_package(Boost 1.74 REQUIRED COMPONENTS filesystem)
find_package(GTest REQUIRED)
