/*
 * Known-bad input for the stack check's own test (size.mk, size-check): a
 * recursion through two functions and an indirect call that
 * stack_indirect.txt does not describe. The check must report both.
 */
int upq_fixture_b(int n);
void upq_fixture_c(void (*f)(void));

int upq_fixture_a(int n)
{
    return n ? upq_fixture_b(n - 1) + 1 : 0;
}

int upq_fixture_b(int n)
{
    volatile char buf[40];
    buf[0] = (char)n;
    return n ? upq_fixture_a(n - 1) + buf[0] : 0;
}

void upq_fixture_c(void (*f)(void))
{
    f();
}
