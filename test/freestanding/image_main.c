/*
 * A bare Cortex-M image holding the whole library: no C library, no startup
 * files, only this vector table and reset code. If it links, nothing in the
 * library needs libc. The tables it walks (refs.c, generated from the
 * library's symbol table by check.sh) name every global upq_ symbol, so the
 * linker keeps all of them and any missing dependency shows up.
 */
#include <stddef.h>
#include <stdint.h>

typedef void (*upq_image_fn)(void);

extern const upq_image_fn upq_image_fns[];  /* ends with a null entry */
extern const void *const upq_image_data[];  /* ends with a null entry */

/* From linker/check_image.ld. */
extern uint32_t upq_image_data_load[], upq_image_data_start[], upq_image_data_end[];
extern uint32_t upq_image_bss_start[], upq_image_bss_end[];
extern uint32_t upq_image_stack_top[];

int main(void);
void upq_image_reset(void);
void upq_image_fault(void);

void upq_image_fault(void)
{
    for (;;) {
    }
}

void upq_image_reset(void)
{
    /* volatile: these loops must stay loops, not become memcpy/memset. */
    volatile uint32_t *d = upq_image_data_start;
    const uint32_t *s = upq_image_data_load;
    while (d < upq_image_data_end)
        *d++ = *s++;
    for (d = upq_image_bss_start; d < upq_image_bss_end;)
        *d++ = 0;
    (void)main();
    upq_image_fault();
}

/* Initial stack pointer, then reset, NMI, HardFault and the other faults. */
__attribute__((section(".vectors"), used)) const upq_image_fn upq_image_vectors[16] = {
    (upq_image_fn)upq_image_stack_top, upq_image_reset, upq_image_fault, upq_image_fault,
    upq_image_fault, upq_image_fault, upq_image_fault, 0, 0, 0, 0,
    upq_image_fault, upq_image_fault, 0, upq_image_fault, upq_image_fault,
};

int main(void)
{
    uintptr_t sum = 0;
    size_t i;
    for (i = 0; upq_image_fns[i]; i++)
        sum += (uintptr_t)upq_image_fns[i];
    for (i = 0; upq_image_data[i]; i++)
        sum += (uintptr_t)upq_image_data[i];
    return (int)(sum & 1u);
}
