// libsodium (Debian's libsodium-dev), for NaCl's crypto_box only: see Shared/NaCl.
#include <sodium.h>
