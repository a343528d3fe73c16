#!/usr/bin/env python3
"""The library's structure against its budgets (test/house/budgets.txt).

    test/house/house.py OBJDIR [--nm NM] [--report]

Reads port/sources.txt (components in layer order, bottom first; files in
order within a component) and draws the dependencies between library files:

  - includes: a quoted #include of one of the library's own headers
    (core/<component>/*.h, port/*.h, codecs/*.h);
  - calls: a symbol a file's object leaves undefined (nm) that another
    file's object defines. The objects are the host build's (OBJDIR).

A header belongs to its folder's component and is placed just before the
first file of that component, so including a header of a component below is
a downward step.

Then checks:
  circles    no two files depend on each other through any chain (a strongly
             connected set of more than one file);
  upward     a dependency on a file listed later in port/sources.txt (or on a
             header of a component listed later) is upward; their number
             stays within the budget;
  complexity every function's cyclomatic complexity (pmccabe) within the
             budget's limit, or within its own listed figure while it waits
             to be split (those figures only go down).

Prints one line per finding and a last line `house: N passed, N failed`.
--report prints the graph's upward edges and the largest functions too.
"""
import os
import re
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(top)

args = sys.argv[1:]
report = '--report' in args
nm = 'nm'
if '--nm' in args:
    nm = args[args.index('--nm') + 1]
objdir = [a for i, a in enumerate(args) if not a.startswith('--') and (i == 0 or args[i - 1] != '--nm')]
objdir = objdir[0] if objdir else 'build/host'

passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    if report:
        print('ok   ' + msg)


def fail(msg):
    global failed
    failed += 1
    print('FAIL ' + msg)


# ---- the list --------------------------------------------------------------
files = []          # in layer order
comp_of = {}
for line in open('port/sources.txt'):
    p = line.split()
    if len(p) == 2 and not line.startswith('#'):
        files.append(p[1])
        comp_of[p[1]] = p[0]
comps = []
for f in files:
    if comp_of[f] not in comps:
        comps.append(comp_of[f])

# headers: each placed before the first file of its component
headers = []
for d in ['port', 'codecs'] + ['core/' + c for c in os.listdir('core') if c != 'include']:
    if not os.path.isdir(d):
        continue
    for h in sorted(os.listdir(d)):
        if h.endswith('.h'):
            headers.append(os.path.join(d, h))


def comp_of_path(path):
    if path.startswith('core/'):
        return path.split('/')[1]
    if path.startswith('codecs/'):
        return 'codecs'
    return 'port'


rank = {}
for h in headers:
    c = comp_of_path(h)
    if c in comps:
        first = min(i for i, f in enumerate(files) if comp_of[f] == c)
        rank[h] = first - 0.5
for i, f in enumerate(files):
    rank[f] = i

# ---- includes --------------------------------------------------------------
by_base = {}
for h in headers:
    by_base.setdefault(os.path.basename(h), []).append(h)
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
edges = {}   # (a, b) -> set of reasons


def resolve(src, name):
    here = os.path.join(os.path.dirname(src), name)
    if os.path.normpath(here) in rank:
        return os.path.normpath(here)
    for d in ('core', 'port', 'codecs'):
        p = os.path.normpath(os.path.join(d, name))
        if p in rank:
            return p
    return None


for src in files + [h for h in headers if h in rank]:
    text = open(src, errors='replace').read()
    for name in inc_re.findall(text):
        tgt = resolve(src, name)
        if tgt and tgt != src:
            edges.setdefault((src, tgt), set()).add('#include "%s"' % name)

# ---- calls (nm) --------------------------------------------------------------
defined = {}
undef = {}
for f in files:
    obj = os.path.join(objdir, f[:-2] + '.o')
    if not os.path.exists(obj):
        fail('no object %s: build the library first (make lib)' % obj)
        continue
    out = subprocess.run([nm, obj], capture_output=True, text=True).stdout
    u = set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == 'U':
            u.add(p[1])
        elif len(p) == 3 and p[1] in 'TDRBCVW' and p[1].isupper():
            defined.setdefault(p[2], f)
    undef[f] = u
for f, us in undef.items():
    for s in us:
        g = defined.get(s)
        if g and g != f:
            edges.setdefault((f, g), set()).add(s)

# ---- circles (Tarjan, iterative) ----------------------------------------------
nodes = sorted(rank, key=lambda n: rank[n])
adj = {n: [] for n in nodes}
for (a, b) in edges:
    adj[a].append(b)
index = {}
low = {}
onstack = set()
stack = []
sccs = []
counter = 0
for root in nodes:
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = counter
            counter += 1
            stack.append(v)
            onstack.add(v)
        recurse = False
        while i < len(adj[v]):
            w = adj[v][i]
            i += 1
            if w not in index:
                work.append((v, i))
                work.append((w, 0))
                recurse = True
                break
            if w in onstack:
                low[v] = min(low[v], index[w])
        if recurse:
            continue
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)
        if work:
            u = work[-1][0]
            low[u] = min(low[u], low[v])

budget = {}
fn_budget = {}
for line in open('test/house/budgets.txt'):
    p = line.split()
    if not p or p[0].startswith('#'):
        continue
    if p[0] == 'function':
        fn_budget[p[1]] = int(p[2])
    else:
        budget[p[0]] = int(p[1])

if len(sccs) > budget.get('circles', 0):
    for c in sccs:
        ties = []
        for a in c:
            for b in c:
                if (a, b) in edges:
                    ties.append('%s -> %s (%s)' % (a, b, ', '.join(sorted(edges[(a, b)])[:4])))
        fail('circle of %d files: %s' % (len(c), '; '.join(ties)))
else:
    ok('circles: %d (budget %d)' % (len(sccs), budget.get('circles', 0)))

# ---- upward ----------------------------------------------------------------------
up = sorted((a, b) for (a, b) in edges if rank[b] > rank[a])
lim = budget.get('upward', 0)
if len(up) > lim:
    for a, b in up:
        print('  upward: %s -> %s (%s)' % (a, b, ', '.join(sorted(edges[(a, b)])[:4])))
    fail('upward dependencies: %d, budget %d' % (len(up), lim))
else:
    ok('upward dependencies: %d (budget %d)' % (len(up), lim))
    if report:
        for a, b in up:
            print('  upward: %s -> %s (%s)' % (a, b, ', '.join(sorted(edges[(a, b)])[:4])))

# ---- complexity ------------------------------------------------------------------
limit = budget.get('complexity', 40)
srcs = [f for f in files]
try:
    out = subprocess.run(['pmccabe'] + srcs, capture_output=True, text=True).stdout
except FileNotFoundError:
    fail('pmccabe is not installed (Debian package pmccabe)')
    out = ''
rows = []
for line in out.splitlines():
    # modified cc, traditional cc, statements, first line, lines, "file(line): name"
    p = line.split('\t')
    if len(p) < 6 or not p[0].isdigit():
        continue
    m = re.match(r'(.*)\((\d+)\): (.*)', p[5].strip())
    if not m:
        continue
    rows.append((int(p[0]), m.group(3), m.group(1), int(p[4])))
over = 0
seen = set()
for cc, name, fname, nlines in sorted(rows, reverse=True):
    key = '%s:%s' % (fname, name)
    seen.add(key)
    allowed = fn_budget.get(key, limit)
    if cc > allowed:
        fail('complexity: %s is %d (budget %d)' % (key, cc, allowed))
        over += 1
    elif cc > limit:
        ok('complexity: %s is %d, listed at %d: split it' % (key, cc, allowed))
for key, v in fn_budget.items():
    if key not in seen:
        fail('complexity: %s is listed in test/house/budgets.txt but not found: take its line out' % key)
    else:
        cc = max(c for c, n, f, _ in rows if '%s:%s' % (f, n) == key)
        if cc < v:
            fail('complexity: %s is %d now, listed at %d: lower its line' % (key, cc, v))
if not over:
    ok('complexity: every function within %d or its listed figure' % limit)
if report:
    for cc, name, fname, nlines in sorted(rows, reverse=True)[:15]:
        print('  %4d %5d lines  %s:%s' % (cc, nlines, fname, name))
    print('  files %d, headers %d, dependencies %d, upward %d, circles %d, functions over %d: %d'
          % (len(files), len(headers), len(edges), len(up), len(sccs), limit,
             sum(1 for r in rows if r[0] > limit)))

print('house: %d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
