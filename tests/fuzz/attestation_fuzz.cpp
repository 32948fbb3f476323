// Fuzz target: the CBOR attestation object of a WebAuthn registration (its map, fmt, authData,
// the attested credential data and the COSE key inside it), reached through the parameters of a
// create_authenticators intent whose client data is valid, so that every input gets as far as
// the CBOR.
#include "auth/attestation.hpp"
#include "fuzz_input.hpp"
#include "signet/encoding.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string challenge = "Y2hhbGxlbmdlLWZvci1mdXp6aW5n";
  static const std::string clientData = signet::base64UrlEncode(std::string_view(
      R"({"type":"webauthn.create","challenge":")" + challenge + R"(","origin":"https://x"})"));
  signet::AuthenticatorParameters params{
      .authenticatorName = "fuzz",
      .challenge = challenge,
      .attestation = {.credentialId = "AQID",
                      .clientDataJson = clientData,
                      .attestationObject = signet::base64UrlEncode(data, size)}};
  fuzz::refusesWithErrorOnly([&] {
    signet::AuthenticatorRecord record;
    signet::parseAuthenticatorParams(params, "authenticators[0]", record);
  });
  return 0;
}
