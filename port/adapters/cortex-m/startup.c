/*
 * Cortex-M startup without a C library: the vector table and a reset
 * handler in C (see startup.h). The symbols come from
 * linker/cortex_m_sections.ld.
 */
#include "startup.h"
#include "../bare_metal.h"

extern uint32_t upq_cm_data_load[], upq_cm_data_start[], upq_cm_data_end[];
extern uint32_t upq_cm_bss_start[], upq_cm_bss_end[];
extern uint32_t upq_cm_stack_bottom[], upq_cm_stack_top[];


/* Coprocessor Access Control Register: CP10 and CP11 are the FPU. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

__attribute__((weak)) void upq_cm_fault(void)
{
    for (;;) {
    }
}

static void fault_entry(void)
{
    upq_cm_fault();
    for (;;) {
    }
}

/*
 * Runs on the stack the core loaded from vector 0. Nothing here may use the
 * FPU before it is switched on, nor call memcpy/memset (there are none):
 * upq_bm_start's loops go through volatile pointers, so they stay loops.
 */
__attribute__((noreturn)) void upq_cm_reset(void)
{
    uint32_t sp;

#if defined(__ARM_FP) || defined(__VFP_FP__)
    CPACR |= 0xFu << 20; /* full access to CP10 and CP11 */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    /* Paint the stack below this frame; 64 bytes spare cover the frame
     * itself whatever the compiler makes of it. */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    upq_bm_start(upq_cm_stack_bottom, (uintptr_t)sp - 64u, UPQ_CM_STACK_PAINT,
                 upq_cm_data_load, upq_cm_data_start, upq_cm_data_end, upq_cm_bss_start,
                 upq_cm_bss_end);
    fault_entry(); /* main() does not return on these images */
    for (;;) {
    }
}

size_t upq_cm_stack_size(void)
{
    return upq_bm_stack_size(upq_cm_stack_bottom, upq_cm_stack_top);
}

size_t upq_cm_stack_high_water(void)
{
    return upq_bm_stack_high_water(upq_cm_stack_bottom, upq_cm_stack_top, UPQ_CM_STACK_PAINT);
}

typedef void (*upq_cm_vector)(void);

/* Initial stack pointer, reset, then NMI, HardFault, MemManage, BusFault,
 * UsageFault, four reserved, SVCall, DebugMonitor, reserved, PendSV and
 * SysTick. No interrupts are used. */
__attribute__((section(".vectors"), used)) const upq_cm_vector upq_cm_vectors[16] = {
    (upq_cm_vector)upq_cm_stack_top,
    upq_cm_reset,
    fault_entry,
    fault_entry,
    fault_entry,
    fault_entry,
    fault_entry,
    0,
    0,
    0,
    0,
    fault_entry,
    fault_entry,
    0,
    fault_entry,
    fault_entry,
};
