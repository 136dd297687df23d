// libsodium (Debian's libsodium-dev), for NaCl's crypto_box only: see Shared/NaCl.
#if __has_include(<sodium.h>)
#include <sodium.h>
#else
#error "libsodium is missing. Debian/Ubuntu: apt-get install libsodium-dev pkg-config; macOS: brew install libsodium pkg-config (README.md, Requirements)"
#endif
