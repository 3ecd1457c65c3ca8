// The calling thread's name, through each platform's pthread call (which Swift's Glibc module does
// not export: they need _GNU_SOURCE).
#if defined(__linux__) || defined(__ANDROID__)
#define _GNU_SOURCE
#endif
#include "CDAOKitSupport.h"
#include <pthread.h>

int daokit_set_current_thread_name(const char *name) {
#if defined(__APPLE__)
    return pthread_setname_np(name);
#elif defined(__linux__) || defined(__ANDROID__)
    return pthread_setname_np(pthread_self(), name);
#else
    return -1;
#endif
}

int daokit_current_thread_name(char *buffer, size_t size) {
#if defined(__APPLE__) || defined(__linux__) || defined(__ANDROID__)
    return pthread_getname_np(pthread_self(), buffer, size);
#else
    return -1;
#endif
}
