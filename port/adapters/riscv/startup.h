/*
 * Minimal RV32 startup (startup.c) for firmware images linked with
 * linker/riscv_virt.ld (qemu's virt board, machine mode, no firmware
 * below): the entry point sets the stack pointer, then the stack is
 * painted, .data copied, .bss zeroed, traps sent to upq_rv_fault, and
 * main() called. The stack high-water mark is measured from the paint.
 *
 * Not part of the library: images link it beside their own main(). The
 * names match the Cortex-M startup's (port/adapters/cortex-m/startup.h).
 */
#ifndef UPQ_RISCV_STARTUP_H
#define UPQ_RISCV_STARTUP_H

#include <stddef.h>
#include <stdint.h>

/* The word the startup fills the stack with. */
#define UPQ_RV_STACK_PAINT 0xC5AC5AC5u

/* Bytes of the stack region (linker script's UPQ_RV_STACK_SIZE). */
size_t upq_rv_stack_size(void);

/* Bytes of stack used at most since reset: from the top of the stack down
 * to the deepest word that no longer holds the paint. */
size_t upq_rv_stack_high_water(void);

/* Called on any trap (no interrupts are enabled). The default (weak) one
 * spins; an image overrides it to report the trap and stop. */
void upq_rv_fault(void);

#endif
