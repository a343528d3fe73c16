#!/usr/bin/env python3
"""The option list of core/include/uparquet/config.h, and what is made from it.

    port/config/options.py list            every option: name, default, kind
    port/config/options.py kconfig         the Zephyr module's Kconfig (zephyr/Kconfig)
    port/config/options.py meson           meson_options.txt
    port/config/options.py sets            the option sets' values (port/config/upq-*.h)
    port/config/options.py check           zephyr/Kconfig and meson_options.txt are what
                                           this script makes, no option set restates a
                                           default of config.h, and meson.build's version
                                           is uparquet.h's

config.h is the one list: an option is a name it gives a default to
(`#ifndef UPQ_X` ... `#define UPQ_X value` ... `#endif`), its meaning the
first line of its row in the table at the top of config.h. A default that
depends on the target (`#if` inside the block) must be one this script knows
how to say in Kconfig (TARGET_DEFAULTS): a new one stops it with an error.
The CMake build reads config.h itself (port/cmake/uparquet.cmake).
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG_H = os.path.join(TOP, 'core/include/uparquet/config.h')
SETS_DIR = os.path.join(TOP, 'port/config')

# Defaults config.h takes from the target, as Kconfig conditions on Zephyr's
# symbols: (value, condition or None), the first whose condition holds.
TARGET_DEFAULTS = {
    'UPQ_WITH_NEON': [('1', 'ARM64'), ('0', None)],
    'UPQ_CRC32_TABLE': [('8', '64BIT'), ('1', None)],
}


def blocks(text):
    """(name, body lines) of every top-level `#ifndef UPQ_X` ... `#endif`."""
    out = []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'#ifndef (UPQ_[A-Z0-9_]+)\b', lines[i])
        if m and not m.group(1).endswith('_H'):
            depth, body, i = 1, [], i + 1
            while i < len(lines):
                line = lines[i].strip()
                if line.startswith('#if'):
                    depth += 1
                elif line.startswith('#endif'):
                    depth -= 1
                    if depth == 0:
                        break
                body.append(line)
                i += 1
            out.append((m.group(1), [b for b in body if b and not b.startswith('/*') and not b.startswith('*')]))
        i += 1
    return out


def simple_value(name, body):
    """The value of a body that is just `#define NAME value`, else None."""
    if len(body) == 1:
        m = re.match(r'#define %s (.+?)\s*(/\*.*)?$' % name, body[0])
        if m:
            return m.group(1)
    return None


def int_value(v):
    """A default as an integer: 1, 0, (1L << 24), ..."""
    m = re.fullmatch(r'\(?\s*(\d+)L?\s*<<\s*(\d+)\s*\)?', v)
    if m:
        return int(m.group(1)) << int(m.group(2))
    return int(v.rstrip('uUlL'))


def options():
    """[(name, default or None when the target decides, meaning)] in config.h's order."""
    text = open(CONFIG_H).read()
    meaning = {}
    # The table's rows: the name, the default, the meaning; continuation
    # lines are indented past the name column.
    table = text[text.index(' * Option '):text.index(' */')].split('\n')
    cur = None
    for line in table:
        m = re.match(r' \* (UPQ_[A-Z0-9_]+)\s+\S+(?:\s+\S+)?\s{2,}(.+)$', line)
        if m:
            cur = m.group(1)
            meaning[cur] = m.group(2).strip()
        elif cur and re.match(r' \*\s{10,}\S', line):
            meaning[cur] += ' ' + line[2:].strip()
        else:
            cur = None
    out = []
    for name, body in blocks(text):
        v = simple_value(name, body)
        if v is None and name not in TARGET_DEFAULTS:
            sys.exit(f'options.py: {name}: its default depends on the target; say how in TARGET_DEFAULTS')
        out.append((name, v, meaning.get(name, name)))
    return out


def is_bool(name, default):
    return name.startswith('UPQ_WITH_') or (default in ('0', '1') and name not in TARGET_DEFAULTS) \
        or name == 'UPQ_WITH_NEON'


def set_blocks(text):
    """blocks() of a set and of the headers it includes (upq_small.h, upq_min.h:
    what several sets share), its own first: the first definition holds."""
    out = blocks(text)
    for inc in re.findall(r'^#include "([a-z_]+\.h)"', text, re.M):
        out += set_blocks(open(os.path.join(SETS_DIR, inc)).read())
    return out


def sets():
    """{set name: ({option: value}, description, path)} of port/config/upq-*.h."""
    config_blocks = dict(blocks(open(CONFIG_H).read()))
    out = {}
    for f in sorted(os.listdir(SETS_DIR)):
        m = re.fullmatch(r'upq-([a-z0-9-]+)\.h', f)
        if not m:
            continue
        text = open(os.path.join(SETS_DIR, f)).read()
        desc = re.search(r'/\*\n \* µparquet option set `[^`]+`\.\n \*\n((?: \*.*\n)+?) \*\n', text)
        desc = ' '.join(l[3:].strip() for l in desc.group(1).split('\n') if l) if desc else m.group(1)
        vals = {}
        for name, body in set_blocks(text):
            v = simple_value(name, body)
            if v is None:
                if body != config_blocks.get(name):
                    sys.exit(f'options.py: {f}: {name} is conditional; a set gives plain values')
                v = 'default'
            vals[name] = v
        out[m.group(1)] = (vals, desc, f)
    return out


def prompt(name, meaning):
    """A short prompt: the meaning up to its first parenthesis, colon or semicolon."""
    p = re.split(r'\s*[(:;]', meaning)[0].strip().rstrip(',.')
    return (p if len(p) >= 6 else meaning).replace('"', "'")


def wrap(text, indent, width=76):
    lines, line = [], indent
    for w in text.split():
        if len(line) + len(w) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += w + ' '
    return lines + [line.rstrip()]


def kconfig_sym(set_name):
    return 'UPARQUET_SET_' + set_name.upper().replace('-', '_')


def kconfig():
    opts = options()
    st = sets()
    out = ['# Generated by port/config/options.py from core/include/uparquet/config.h and',
           '# port/config/upq-*.h: do not edit (make check compares).',
           '#',
           '# µparquet as a Zephyr module: CONFIG_UPARQUET turns it on, an option set',
           '# gives the defaults, and each UPQ_* symbol below is the option of that name',
           '# (zephyr/CMakeLists.txt passes every one to the compiler).',
           '',
           'menuconfig UPARQUET',
           '\tbool "µparquet: read and write Apache Parquet files"',
           '\thelp',
           '\t  Freestanding Parquet reader and writer: no libc calls, no allocation,',
           '\t  resumable calls. docs/configuration.md describes every option.',
           '',
           'if UPARQUET',
           '',
           'choice UPARQUET_OPTION_SET',
           '\tprompt "Option set"',
           '\tdefault UPARQUET_SET_DEFAULT',
           '\thelp',
           '\t  The option set whose values the options below take by default',
           '\t  (port/config/upq-<set>.h); each option can still be changed.',
           '',
           'config UPARQUET_SET_DEFAULT',
           '\tbool "none: the defaults of config.h"',
           '']
    for s, (vals, desc, f) in st.items():
        out += ['config ' + kconfig_sym(s), f'\tbool "{s}"', '\thelp'] + wrap(desc, '\t  ') + ['']
    out += ['endchoice', '']
    for name, default, meaning in opts:
        b = is_bool(name, default)
        out.append('config ' + name)
        out.append('\t%s "%s"' % ('bool' if b else 'int', prompt(name, meaning)))
        for s, (vals, _, _) in st.items():
            v = vals.get(name)
            if v is None or v == 'default':
                continue
            if b:
                out.append('\tdefault %s if %s' % ('y' if int_value(v) else 'n', kconfig_sym(s)))
            else:
                out.append('\tdefault %d if %s' % (int_value(v), kconfig_sym(s)))
        if default is None:
            for v, cond in TARGET_DEFAULTS[name]:
                kv = ('y' if v == '1' else 'n') if b else v
                out.append('\tdefault %s%s' % (kv, ' if ' + cond if cond else ''))
        elif b:
            out.append('\tdefault %s' % ('y' if int_value(default) else 'n'))
        else:
            out.append('\tdefault %d' % int_value(default))
        out += ['\thelp'] + wrap(name[4:] + ': ' + meaning.replace('"', "'"), '\t  ') + ['']
    out += ['endif # UPARQUET', '']
    return '\n'.join(out)


def meson():
    opts = options()
    st = sets()
    out = ["# Generated by port/config/options.py from core/include/uparquet/config.h:",
           "# do not edit (make check compares).",
           "option('option_set', type: 'combo', choices: ['none', %s], value: 'none'," % ', '.join("'%s'" % s for s in st),
           "       description: 'option set (port/config/upq-<set>.h); none: the defaults of config.h')",
           "option('deps_libdir', type: 'string', value: '',",
           "       description: 'the codec packages built by make deps (default: build/host/deps)')"]
    for name, default, meaning in opts:
        key = name[4:].lower()
        if name.startswith('UPQ_WITH_'):
            out.append("option('%s', type: 'feature', value: 'auto'," % key)
            out.append("       description: '%s (auto: the set\\'s or config.h\\'s)')" % prompt(name, meaning).replace("'", "\\'"))
        else:
            out.append("option('%s', type: 'string', value: ''," % key)
            out.append("       description: '%s (empty: the set\\'s or config.h\\'s)')" % prompt(name, meaning).replace("'", "\\'"))
    return '\n'.join(out) + '\n'


def check():
    bad = []
    for path, text in (('zephyr/Kconfig', kconfig()), ('meson_options.txt', meson())):
        p = os.path.join(TOP, path)
        if not os.path.exists(p) or open(p).read() != text:
            bad.append(f'{path} is not what port/config/options.py {path.split("/")[0] == "zephyr" and "kconfig" or "meson"} makes')
    version = re.search(r'#define UPQ_VERSION_STRING "([^"]+)"', open(os.path.join(TOP, 'core/include/uparquet/uparquet.h')).read()).group(1)
    meson_version = re.search(r"project\('uparquet', 'c', version: '([^']+)'", open(os.path.join(TOP, 'meson.build')).read())
    if not meson_version or meson_version.group(1) != version:
        bad.append(f'meson.build\'s project version is not uparquet.h\'s {version}')
    defaults = {n: d for n, d, _ in options()}
    for s, (vals, _, f) in sets().items():
        for name, v in vals.items():
            if name not in defaults:
                bad.append(f'{f}: {name} is not an option of config.h')
            elif v == 'default' or (defaults[name] is not None and int_value(v) == int_value(defaults[name])):
                bad.append(f'{f}: {name} restates config.h\'s default')
    for b in bad:
        print('FAIL ' + b)
    n = len(options())
    print(f'options: {n} options, {len(sets())} sets, ' + ('all current' if not bad else f'{len(bad)} problems'))
    return 1 if bad else 0


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else 'list'
    if cmd == 'list':
        for name, default, meaning in options():
            print(f'{name} {default if default is not None else "(target)"} {"bool" if is_bool(name, default) else "int"}')
    elif cmd == 'kconfig':
        sys.stdout.write(kconfig())
    elif cmd == 'meson':
        sys.stdout.write(meson())
    elif cmd == 'sets':
        for s, (vals, desc, f) in sets().items():
            print(s + ': ' + ' '.join(f'{k}={v}' for k, v in vals.items()))
    elif cmd == 'check':
        sys.exit(check())
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
