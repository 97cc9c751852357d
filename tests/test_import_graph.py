"""No import circles among the package's modules (at module level, where an import runs
when the module is first imported; an import inside a function runs when it is called)."""
from __future__ import annotations

import ast
from pathlib import Path

SIM = Path(__file__).resolve().parents[1] / "sim"


def _modules() -> dict[str, Path]:
    out = {}
    for path in SIM.rglob("*.py"):
        parts = path.relative_to(SIM.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None
    graph = {m: set() for m in modules}
    for m, path in modules.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("sim"):
                targets = [known(f"{node.module}.{a.name}") or known(node.module) for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [known(a.name) for a in node.names if a.name.startswith("sim")]
            else:
                continue
            graph[m] |= {t for t in targets if t and t != m}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_finder_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_of_the_package_imports_itself_round_a_circle():
    assert _circles(_graph(_modules())) == []
