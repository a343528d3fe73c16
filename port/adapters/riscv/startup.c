/*
 * RV32 startup without a C library (see startup.h). The symbols come from
 * linker/riscv_virt.ld.
 */
#include "startup.h"

extern uint32_t upq_rv_data_load[], upq_rv_data_start[], upq_rv_data_end[];
extern uint32_t upq_rv_bss_start[], upq_rv_bss_end[];
extern uint32_t upq_rv_stack_bottom[], upq_rv_stack_top[];

int main(void);
void upq_rv_reset(void);

__attribute__((weak)) void upq_rv_fault(void)
{
    for (;;) {
    }
}

/* mtvec's target: 4-aligned, direct mode. Whatever trapped is not
 * returned to. */
__attribute__((aligned(4), noreturn)) static void trap_entry(void)
{
    upq_rv_fault();
    for (;;) {
    }
}

/* The entry point: a stack, then C. No global pointer is set up: the
 * images are linked without __global_pointer$, so no code relies on gp. */
__asm__(".section .text.upq_rv_start\n"
        ".globl upq_rv_start\n"
        "upq_rv_start:\n"
        "    la sp, upq_rv_stack_top\n"
        "    j upq_rv_reset\n");

/*
 * Nothing here may call memcpy/memset (there are none): the loops go
 * through volatile pointers so the compiler keeps them loops.
 */
__attribute__((noreturn)) void upq_rv_reset(void)
{
    volatile uint32_t *d;
    const uint32_t *s;
    uintptr_t sp;

    __asm__ volatile("csrw mtvec, %0" : : "r"((uintptr_t)trap_entry));
    /* Paint the stack below this frame; 64 bytes spare cover the frame
     * itself whatever the compiler makes of it. */
    __asm__ volatile("mv %0, sp" : "=r"(sp));
    for (d = upq_rv_stack_bottom; (uintptr_t)d < sp - 64u; d++)
        *d = UPQ_RV_STACK_PAINT;
    for (d = upq_rv_data_start, s = upq_rv_data_load; d < upq_rv_data_end;)
        *d++ = *s++;
    for (d = upq_rv_bss_start; d < upq_rv_bss_end;)
        *d++ = 0;
    (void)main();
    trap_entry(); /* main() does not return on these images */
}

size_t upq_rv_stack_size(void)
{
    return (size_t)((uintptr_t)upq_rv_stack_top - (uintptr_t)upq_rv_stack_bottom);
}

size_t upq_rv_stack_high_water(void)
{
    const volatile uint32_t *p = upq_rv_stack_bottom;
    while (p < upq_rv_stack_top && *p == UPQ_RV_STACK_PAINT)
        p++;
    return (size_t)((uintptr_t)upq_rv_stack_top - (uintptr_t)p);
}
