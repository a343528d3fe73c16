/*
 * RV32 startup without a C library (see startup.h). The symbols come from
 * linker/riscv_virt.ld.
 */
#include "startup.h"
#include "../bare_metal.h"

extern uint32_t upq_rv_data_load[], upq_rv_data_start[], upq_rv_data_end[];
extern uint32_t upq_rv_bss_start[], upq_rv_bss_end[];
extern uint32_t upq_rv_stack_bottom[], upq_rv_stack_top[];

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
    uintptr_t sp;

    __asm__ volatile("csrw mtvec, %0" : : "r"((uintptr_t)trap_entry));
    /* Paint the stack below this frame; 64 bytes spare cover the frame
     * itself whatever the compiler makes of it. */
    __asm__ volatile("mv %0, sp" : "=r"(sp));
    upq_bm_start(upq_rv_stack_bottom, (uintptr_t)sp - 64u, UPQ_RV_STACK_PAINT,
                 upq_rv_data_load, upq_rv_data_start, upq_rv_data_end, upq_rv_bss_start,
                 upq_rv_bss_end);
    trap_entry(); /* main() does not return on these images */
}

size_t upq_rv_stack_size(void)
{
    return upq_bm_stack_size(upq_rv_stack_bottom, upq_rv_stack_top);
}

size_t upq_rv_stack_high_water(void)
{
    return upq_bm_stack_high_water(upq_rv_stack_bottom, upq_rv_stack_top, UPQ_RV_STACK_PAINT);
}
