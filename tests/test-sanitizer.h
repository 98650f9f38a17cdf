/* test-sanitizer.h: whether the test is built with AddressSanitizer, for the tests
 * that run fewer cases there. GCC says so with __SANITIZE_ADDRESS__; clang 14 (the
 * fuzz build) does not define it and answers __has_feature instead, so without this
 * the fuzz build's full suite ran the optimised build's case counts and timed out. */
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PLX_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PLX_TEST_ASAN 1
#endif
#endif
