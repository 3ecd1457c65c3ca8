// The calling thread's stack bounds, from each platform's own API.
#if defined(__linux__) || defined(__ANDROID__)
#define _GNU_SOURCE
#endif
#include "CDAOKitSupport.h"
#include <pthread.h>

_Thread_local char daokit_thread_marker;

uintptr_t daokit_current_thread_stack_low(void) {
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    // `pthread_get_stackaddr_np` is the top (highest address) of the stack.
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
    size_t size = pthread_get_stacksize_np(self);
    return size < top ? top - size : 0;
#elif defined(__linux__) || defined(__ANDROID__)
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
    void *low = 0;
    size_t size = 0;
    int status = pthread_attr_getstack(&attributes, &low, &size);
    pthread_attr_destroy(&attributes);
    return status == 0 ? (uintptr_t)low : 0;
#else
    return 0;
#endif
}
