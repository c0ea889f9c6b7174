// Whether this build runs under AddressSanitizer (g++ defines __SANITIZE_ADDRESS__, clang answers
// __has_feature): code that hides memory from the sanitizer (pools, streamed stores) steps aside.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define REDLOCK_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REDLOCK_UNDER_ASAN 1
#endif
#endif
