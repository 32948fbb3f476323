#include "store/pkcs11_token.hpp"

#include <dlfcn.h>
#include <p11-kit/pkcs11.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "signet/error.hpp"

namespace signet {

namespace {
std::string rvText(CK_RV rv) {
  switch (rv) {
    case CKR_PIN_INCORRECT:
      return "CKR_PIN_INCORRECT";
    case CKR_PIN_LOCKED:
      return "CKR_PIN_LOCKED";
    case CKR_USER_ALREADY_LOGGED_IN:
      return "CKR_USER_ALREADY_LOGGED_IN";
    case CKR_MECHANISM_INVALID:
      return "CKR_MECHANISM_INVALID";
    case CKR_ATTRIBUTE_SENSITIVE:
      return "CKR_ATTRIBUTE_SENSITIVE";
    case CKR_ENCRYPTED_DATA_INVALID:
      return "CKR_ENCRYPTED_DATA_INVALID";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "CKR 0x%lx", static_cast<unsigned long>(rv));
      return buf;
    }
  }
}

// A label as the token pads it: 32 bytes, blank-filled.
std::string trimmed(const unsigned char* text, size_t size) {
  std::string s(reinterpret_cast<const char*>(text), size);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}
}  // namespace

struct Pkcs11Token::Impl {
  Pkcs11Settings settings;
  void* library = nullptr;
  CK_FUNCTION_LIST_PTR p11 = nullptr;
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  bool initialized = false;
  mutable std::mutex mutex;  // one session, used by one caller at a time

  void check(CK_RV rv, const std::string& step) const {
    if (rv != CKR_OK)
      throw failedPrecondition("PKCS#11 " + step + " failed (" + rvText(rv) + ") with module " +
                               settings.module + ", token '" + settings.token + "'");
  }

  CK_OBJECT_HANDLE findKey() const {
    CK_OBJECT_CLASS keyClass = CKO_SECRET_KEY;
    CK_ATTRIBUTE query[] = {
        {CKA_CLASS, &keyClass, sizeof keyClass},
        {CKA_LABEL, const_cast<char*>(settings.key.data()), settings.key.size()},
    };
    check(p11->C_FindObjectsInit(session, query, 2), "C_FindObjectsInit");
    CK_OBJECT_HANDLE found[2];
    CK_ULONG count = 0;
    CK_RV rv = p11->C_FindObjects(session, found, 2, &count);
    p11->C_FindObjectsFinal(session);
    check(rv, "C_FindObjects");
    if (count > 1)
      throw failedPrecondition("token '" + settings.token + "' holds two keys labelled '" +
                               settings.key + "'");
    return count == 1 ? found[0] : CK_INVALID_HANDLE;
  }

  CK_OBJECT_HANDLE requireKey() const {
    CK_OBJECT_HANDLE key = findKey();
    if (key == CK_INVALID_HANDLE)
      throw failedPrecondition("token '" + settings.token + "' has no key labelled '" +
                               settings.key + "' (signet keys wrap-master makes it)");
    return key;
  }
};

Pkcs11Token::Pkcs11Token(const Pkcs11Settings& settings) : impl_(std::make_unique<Impl>()) {
  Impl& i = *impl_;
  i.settings = settings;
  i.library = dlopen(settings.module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!i.library)
    throw failedPrecondition("cannot load the PKCS#11 module " + settings.module + ": " +
                             dlerror());
  auto getList = reinterpret_cast<CK_C_GetFunctionList>(dlsym(i.library, "C_GetFunctionList"));
  if (!getList || getList(&i.p11) != CKR_OK || !i.p11)
    throw failedPrecondition(settings.module + " is not a PKCS#11 module (no C_GetFunctionList)");
  CK_C_INITIALIZE_ARGS args{};
  args.flags = CKF_OS_LOCKING_OK;
  CK_RV rv = i.p11->C_Initialize(&args);
  if (rv != CKR_OK && rv != CKR_CRYPTOKI_ALREADY_INITIALIZED) i.check(rv, "C_Initialize");
  i.initialized = rv == CKR_OK;

  CK_ULONG count = 0;
  i.check(i.p11->C_GetSlotList(CK_TRUE, nullptr, &count), "C_GetSlotList");
  std::vector<CK_SLOT_ID> slots(count);
  i.check(i.p11->C_GetSlotList(CK_TRUE, slots.data(), &count), "C_GetSlotList");
  std::optional<CK_SLOT_ID> slot;
  for (CK_ULONG n = 0; n < count; ++n) {
    CK_TOKEN_INFO info;
    if (i.p11->C_GetTokenInfo(slots[n], &info) == CKR_OK &&
        trimmed(info.label, sizeof info.label) == settings.token) {
      slot = slots[n];
      break;
    }
  }
  if (!slot)
    throw failedPrecondition("no PKCS#11 token labelled '" + settings.token + "' in " +
                             settings.module);
  i.check(i.p11->C_OpenSession(*slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr, nullptr,
                               &i.session),
          "C_OpenSession");
  const char* pin = std::getenv(settings.pinEnv.c_str());
  if (!pin || !*pin)
    throw failedPrecondition(
        "the PKCS#11 user PIN is not set: put it in the environment "
        "variable " +
        settings.pinEnv);
  rv = i.p11->C_Login(i.session, CKU_USER,
                      reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(pin)), std::strlen(pin));
  if (rv != CKR_USER_ALREADY_LOGGED_IN) i.check(rv, "C_Login");
}

Pkcs11Token::~Pkcs11Token() {
  Impl& i = *impl_;
  if (i.p11 && i.session != CK_INVALID_HANDLE) {
    i.p11->C_Logout(i.session);
    i.p11->C_CloseSession(i.session);
  }
  if (i.p11 && i.initialized) i.p11->C_Finalize(nullptr);
  if (i.library) dlclose(i.library);
}

bool Pkcs11Token::hasKey() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->findKey() != CK_INVALID_HANDLE;
}

void Pkcs11Token::generateKey() {
  Impl& i = *impl_;
  std::lock_guard lock(i.mutex);
  if (i.findKey() != CK_INVALID_HANDLE)
    throw failedPrecondition("token '" + i.settings.token + "' already holds a key labelled '" +
                             i.settings.key + "'");
  CK_MECHANISM mechanism{CKM_AES_KEY_GEN, nullptr, 0};
  CK_ULONG length = 32;
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ATTRIBUTE attributes[] = {
      {CKA_TOKEN, &yes, sizeof yes},
      {CKA_PRIVATE, &yes, sizeof yes},
      {CKA_SENSITIVE, &yes, sizeof yes},
      {CKA_EXTRACTABLE, &no, sizeof no},
      {CKA_ENCRYPT, &yes, sizeof yes},
      {CKA_DECRYPT, &yes, sizeof yes},
      {CKA_WRAP, &no, sizeof no},
      {CKA_UNWRAP, &no, sizeof no},
      {CKA_VALUE_LEN, &length, sizeof length},
      {CKA_LABEL, const_cast<char*>(i.settings.key.data()), i.settings.key.size()},
  };
  CK_OBJECT_HANDLE key;
  i.check(i.p11->C_GenerateKey(i.session, &mechanism, attributes,
                               sizeof attributes / sizeof attributes[0], &key),
          "C_GenerateKey");
}

Bytes Pkcs11Token::encrypt(const crypto::SecretBytes& plaintext, const Bytes& aad) {
  Impl& i = *impl_;
  std::lock_guard lock(i.mutex);
  CK_OBJECT_HANDLE key = i.requireKey();
  Bytes nonce = crypto::randomBytes(12);
  CK_GCM_PARAMS gcm{nonce.data(), nonce.size(), 96, const_cast<uint8_t*>(aad.data()),
                    aad.size(),   128};
  CK_MECHANISM mechanism{CKM_AES_GCM, &gcm, sizeof gcm};
  i.check(i.p11->C_EncryptInit(i.session, &mechanism, key), "C_EncryptInit (AES-GCM)");
  CK_ULONG size = 0;
  i.check(i.p11->C_Encrypt(i.session, const_cast<uint8_t*>(plaintext.data()), plaintext.size(),
                           nullptr, &size),
          "C_Encrypt");
  Bytes out(size);
  i.check(i.p11->C_Encrypt(i.session, const_cast<uint8_t*>(plaintext.data()), plaintext.size(),
                           out.data(), &size),
          "C_Encrypt");
  out.resize(size);
  out.insert(out.begin(), nonce.begin(), nonce.end());
  return out;
}

std::optional<crypto::SecretBytes> Pkcs11Token::decrypt(const Bytes& sealed, const Bytes& aad) {
  Impl& i = *impl_;
  if (sealed.size() < 12 + 16) return std::nullopt;
  std::lock_guard lock(i.mutex);
  CK_OBJECT_HANDLE key = i.requireKey();
  Bytes nonce(sealed.begin(), sealed.begin() + 12);
  Bytes body(sealed.begin() + 12, sealed.end());
  CK_GCM_PARAMS gcm{nonce.data(), nonce.size(), 96, const_cast<uint8_t*>(aad.data()),
                    aad.size(),   128};
  CK_MECHANISM mechanism{CKM_AES_GCM, &gcm, sizeof gcm};
  i.check(i.p11->C_DecryptInit(i.session, &mechanism, key), "C_DecryptInit (AES-GCM)");
  Bytes out(body.size());
  CK_ULONG size = out.size();
  CK_RV rv = i.p11->C_Decrypt(i.session, body.data(), body.size(), out.data(), &size);
  if (rv != CKR_OK) {
    crypto::wipe(out.data(), out.size());
    return std::nullopt;
  }
  out.resize(size);
  return crypto::SecretBytes(std::move(out));
}

bool Pkcs11Token::keyValueReadable() const {
  Impl& i = *impl_;
  std::lock_guard lock(i.mutex);
  CK_OBJECT_HANDLE key = i.requireKey();
  uint8_t value[64];
  CK_ATTRIBUTE attribute{CKA_VALUE, value, sizeof value};
  CK_RV rv = i.p11->C_GetAttributeValue(i.session, key, &attribute, 1);
  crypto::wipe(value, sizeof value);
  return rv == CKR_OK && attribute.ulValueLen != CK_UNAVAILABLE_INFORMATION;
}

}  // namespace signet
