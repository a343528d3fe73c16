/*
 * Minimal Cortex-M startup (startup.c) for firmware images linked with
 * linker/mps2_an386.ld or linker/stm32f4.ld: vector table, reset handler
 * (FPU on, stack painted, .data copied, .bss zeroed, then main()), and the
 * stack high-water mark measured from the paint.
 *
 * Not part of the library: images link it beside their own main().
 */
#ifndef UPQ_CORTEX_M_STARTUP_H
#define UPQ_CORTEX_M_STARTUP_H

#include <stddef.h>
#include <stdint.h>

/* The word the reset handler fills the stack with. */
#define UPQ_CM_STACK_PAINT 0xC5AC5AC5u

/* Bytes of the stack region (linker script's UPQ_CM_STACK_SIZE). */
size_t upq_cm_stack_size(void);

/* Bytes of stack used at most since reset: from the top of the stack down
 * to the deepest word that no longer holds the paint. */
size_t upq_cm_stack_high_water(void);

/* Called on HardFault and the other fault exceptions. The default (weak)
 * one spins; an image overrides it to report the fault and stop. */
void upq_cm_fault(void);

/* The reset handler (the image's entry point). */
void upq_cm_reset(void);

#endif
