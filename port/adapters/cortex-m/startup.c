/*
 * Cortex-M startup without a C library: the vector table and a reset
 * handler in C (see startup.h). The symbols come from
 * linker/cortex_m_sections.ld.
 */
#include "startup.h"

extern uint32_t upq_cm_data_load[], upq_cm_data_start[], upq_cm_data_end[];
extern uint32_t upq_cm_bss_start[], upq_cm_bss_end[];
extern uint32_t upq_cm_stack_bottom[], upq_cm_stack_top[];

int main(void);

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
 * the loops go through volatile pointers so the compiler keeps them loops.
 */
__attribute__((noreturn)) void upq_cm_reset(void)
{
    volatile uint32_t *d;
    const uint32_t *s;
    uint32_t sp;

#if defined(__ARM_FP) || defined(__VFP_FP__)
    CPACR |= 0xFu << 20; /* full access to CP10 and CP11 */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    /* Paint the stack below this frame; 64 bytes spare cover the frame
     * itself whatever the compiler makes of it. */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (d = upq_cm_stack_bottom; (uintptr_t)d < (uintptr_t)sp - 64u; d++)
        *d = UPQ_CM_STACK_PAINT;
    for (d = upq_cm_data_start, s = upq_cm_data_load; d < upq_cm_data_end;)
        *d++ = *s++;
    for (d = upq_cm_bss_start; d < upq_cm_bss_end;)
        *d++ = 0;
    (void)main();
    fault_entry(); /* main() does not return on these images */
    for (;;) {
    }
}

size_t upq_cm_stack_size(void)
{
    return (size_t)((uintptr_t)upq_cm_stack_top - (uintptr_t)upq_cm_stack_bottom);
}

size_t upq_cm_stack_high_water(void)
{
    const volatile uint32_t *p = upq_cm_stack_bottom;
    while (p < upq_cm_stack_top && *p == UPQ_CM_STACK_PAINT)
        p++;
    return (size_t)((uintptr_t)upq_cm_stack_top - (uintptr_t)p);
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
