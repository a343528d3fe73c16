#!/usr/bin/env python3
"""The Zephyr module's Kconfig against the option sets (check-builds).

    kconfig_check.py TOP WORKDIR

Loads zephyr/Kconfig with kconfiglib (Debian's python3-kconfiglib) under a
stub of the two Zephyr symbols it refers to (ARM64, 64BIT), and requires no
kconfiglib warning. Then for every option set, and for none, on a 64-bit
host compiler and on arm-none-eabi-gcc (64BIT off): selects the set as a
prj.conf would (CONFIG_UPARQUET=y, CONFIG_UPARQUET_SET_<SET>=y), turns every
UPQ_* symbol into the -D flag zephyr/CMakeLists.txt gives the compiler, and
runs port/config/config_build.sh with those flags and with the set's header
(-DUPQ_CONFIG_FILE): the two config_build.h files must be the same. Writes
each .config, and its -D flags as NAME=VALUE lines (.defs), to WORKDIR for
the CMake part of the check (builds.sh).

Prints one line per case and `kconfig: N passed, N failed`.
"""
import os
import subprocess
import sys

import kconfiglib

top, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
sys.path.insert(0, os.path.join(top, 'port/config'))
import options  # noqa: E402  (port/config/options.py: the option list and the sets)

passed = failed = 0


def result(ok, msg):
    global passed, failed
    if ok:
        passed += 1
        print('ok: ' + msg)
    else:
        failed += 1
        print('FAIL: ' + msg)


stub = os.path.join(work, 'Kconfig.stub')
with open(stub, 'w') as f:
    f.write('# Zephyr symbols zephyr/Kconfig refers to\n'
            'config ARM64\n\tbool "stub"\n'
            'config 64BIT\n\tbool "stub"\n'
            'source "%s"\n' % os.path.join(top, 'zephyr/Kconfig'))

kconf = kconfiglib.Kconfig(stub, warn_to_stderr=False)
result(not kconf.warnings, 'zephyr/Kconfig loads without a warning' +
       ('' if not kconf.warnings else ': ' + ' | '.join(kconf.warnings)))
names = [n for n, _, _ in options.options()]
missing = [n for n in names if n not in kconf.syms or kconf.syms[n].type == kconfiglib.UNKNOWN]
result(not missing, f'zephyr/Kconfig has a symbol for each of config.h\'s {len(names)} options' +
       ('' if not missing else ': missing ' + ' '.join(missing)))

compilers = [('gcc', True), ('arm-none-eabi-gcc', False)]
for set_name in ['none'] + list(options.sets()):
    for cc, is64 in compilers:
        kconf = kconfiglib.Kconfig(stub, warn_to_stderr=False)
        kconf.syms['64BIT'].set_value('y' if is64 else 'n')
        kconf.syms['UPARQUET'].set_value('y')
        sym = 'UPARQUET_SET_DEFAULT' if set_name == 'none' else options.kconfig_sym(set_name)
        kconf.syms[sym].set_value('y')
        tag = f'{set_name}-{cc}'
        kconf.write_config(os.path.join(work, tag + '.config'))
        defs = []
        for n in names:
            s = kconf.syms[n]
            v = s.str_value
            defs.append(f'-D{n}={1 if v == "y" else 0 if v in ("n", "") else v}')
        with open(os.path.join(work, tag + '.defs'), 'w') as f:
            f.write(''.join(d[2:] + '\n' for d in defs))
        base = ['-I' + os.path.join(top, 'core/include'), '-I' + os.path.join(top, 'port/config')]
        a = os.path.join(work, tag + '.kconfig.h')
        b = os.path.join(work, tag + '.set.h')
        script = os.path.join(top, 'port/config/config_build.sh')
        set_flags = [] if set_name == 'none' else [f'-DUPQ_CONFIG_FILE="upq-{set_name}.h"']
        ra = subprocess.run(['bash', script, a, cc] + base + defs, capture_output=True, text=True)
        rb = subprocess.run(['bash', script, b, cc] + base + set_flags, capture_output=True, text=True)
        if ra.returncode or rb.returncode:
            result(False, f'{tag}: config_build.sh failed: {ra.stderr.strip()} {rb.stderr.strip()}')
            continue
        same = open(a).read() == open(b).read()
        diff = ''
        if not same:
            la, lb = open(a).read().split('\n'), open(b).read().split('\n')
            diff = ' '.join(sorted(set(l for l in la if l.startswith('#define')) ^ set(l for l in lb if l.startswith('#define'))))
        result(same, f'{tag}: the Kconfig\'s selection gives the config_build.h of ' +
               ('config.h\'s defaults' if set_name == 'none' else f'upq-{set_name}.h') +
               ('' if same else ': differs in ' + diff))

print(f'kconfig: {passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
