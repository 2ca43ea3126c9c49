#!/usr/bin/env python3
"""Extracts the command-line flags an engine accepts from its source, for tests/tests/engine_args.rs.

Usage:
  extract.py sglang VERSION path/to/sglang/srt/server_args.py > sglang-VERSION.txt
  (from SGLang 0.5.2x most flags are declared as `A[T, Arg(...)]` fields of the namespace classes in
  sglang/srt/arg_groups/fields/*.py and registered by `add_cli_args_from_dataclass`; when that folder
  sits next to server_args.py its fields are read too, by the rules of arg_groups/arg_utils.py)
  extract.py vllm VERSION path/to/vllm > vllm-VERSION.txt
  (path/to/vllm: the unpacked wheel's root, holding vllm/engine/arg_utils.py, the server's
  vllm/entrypoints/{openai,common}/cli_args.py — vllm/entrypoints/openai/api_server.py for 0.2.x —, the
  vllm/config/ package or, before 0.10, the single vllm/config.py, and the quantization package's __init__.py)

Reads the source with Python's `ast` (nothing is imported or run). For each `add_argument` call whose
first arguments are string literals it writes one line: the flag names (aliases joined by `|`), a tab,
the value kind (`flag` for store_true / store_false / BooleanOptionalAction, `int`, `float`, `str`,
`json`, `deprecated`), and, when the engine restricts the values, a tab and the comma-separated choices
(literal lists, module-level constants, or for vLLM the `Literal[...]` type of the config field).
"""
import ast
import os
import sys


def literal_choices(node):
    """The values of the last all-constant `Literal[...]` inside a type annotation, else None."""
    found = None
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and getattr(sub.value, "id", "") == "Literal":
            s = sub.slice
            elts = s.elts if isinstance(s, ast.Tuple) else [s]
            if all(isinstance(e, ast.Constant) for e in elts):
                found = [str(e.value) for e in elts]
    return found


def module_constants(tree):
    """Module-level NAME = [str, ...] / {str, ...} / [*OTHER, str] assignments."""
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = literal_strings(node.value, consts)
            if v is not None:
                consts[node.targets[0].id] = v
    return consts


def literal_strings(node, consts):
    if isinstance(node, (ast.List, ast.Set, ast.Tuple)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant):
                out.append(str(e.value))
            elif isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) and e.value.id in consts:
                out.extend(consts[e.value.id])
            else:
                return None
        return out
    if isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = literal_strings(node.left, consts), literal_strings(node.right, consts)
        if a is not None and b is not None:
            return a + b
    return None


def kind_of(call, consts, vllm=False):
    kind, choices = "str", None
    for kw in call.keywords:
        if kw.arg == "action":
            v = kw.value
            name = v.value if isinstance(v, ast.Constant) else getattr(v, "attr", getattr(v, "id", ""))
            if name in ("store_true", "store_false", "BooleanOptionalAction"):
                kind = "flag"
            elif "Deprecated" in name:
                # DeprecatedAction (vLLM, SGLang ≤ 0.5.9), DeprecatedStoreTrueAction /
                # DeprecatedStoreConstAction (SGLang 0.5.2x): accepted with a warning.
                kind = "deprecated"
        elif kw.arg == "type":
            v = kw.value
            name = getattr(v, "id", getattr(v, "attr", ""))
            if name in ("int", "float"):
                kind = name
            elif name == "human_readable_int" and vllm:
                # vLLM 0.8.x - 0.10.x `--max-model-len` (`1k`, `1K` also parse): an int, as the
                # config field's type gives it from 0.11.0 (SGLang's lists keep str).
                kind = "int"
            elif name in ("json.loads", "loads") or "json" in ast.unparse(v).lower():
                kind = "json"
        elif kw.arg == "choices":
            choices = literal_strings(kw.value, consts)
    # vLLM 0.9.1+ `deprecated=True` (Python 3.13 argparse: accepted with a warning), e.g. 0.10.1.1's
    # `--disable-log-requests`, whose replacement is `--enable-log-requests`. Recorded for flags that take
    # no value only (the `deprecated` kind takes none); a deprecated valued flag keeps its kind.
    dep = [kw for kw in call.keywords if kw.arg == "deprecated"]
    if kind == "flag" and dep and isinstance(dep[0].value, ast.Constant) and dep[0].value.value is True:
        kind = "deprecated"
    # vLLM 0.5.x `--enable-chunked-prefill` (`action=StoreBoolean, nargs="?", const="True"`): the value
    # is optional, so the bare flag is a complete argument.
    nargs = {kw.arg: kw.value for kw in call.keywords}
    if (isinstance(nargs.get("nargs"), ast.Constant) and nargs["nargs"].value == "?" and "const" in nargs
            and "action" in nargs):
        kind = "flag"
    return kind, choices


def flags_of(call):
    names = []
    for a in call.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
            names.append(a.value)
    return names


def sglang(path):
    tree = ast.parse(open(path).read())
    consts = module_constants(tree)
    rows = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            names = flags_of(node)
            if names:
                rows.append((names, *kind_of(node, consts)))
    return rows


def sglang_fields(srt):
    """SGLang 0.5.14+: `name: A[T, "help"]` / `A[T, Arg(...)]` fields (0.5.2x: of sglang/srt/arg_groups/fields/*.py;
    0.5.14-0.5.19: of the ServerArgs class in server_args.py),
    turned into flags as `add_cli_args_from_dataclass` (arg_groups/arg_utils.py) does: `--` + the name
    with `-` for `_` unless `cli_name`, plus `aliases`; `no_cli=True` skipped; bool -> store_true;
    Literal[...] -> its values as choices; int/float -> their kind; `type_parser=json.loads` -> json."""
    base = os.path.join(srt, "arg_groups")
    consts = {}
    for extra in ("choices.py",):
        f = os.path.join(base, extra)
        if os.path.exists(f):
            consts.update(module_constants(ast.parse(open(f).read())))
    rows = []
    folder = os.path.join(base, "fields")
    for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not f.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(folder, f)).read())
        local = dict(consts)
        local.update(module_constants(tree))
        rows += annotated_fields([n for n in tree.body if isinstance(n, ast.ClassDef)], local)
    # SGLang 0.5.14-0.5.19: the same `A[T, ...]` fields sit on the ServerArgs dataclass of server_args.py
    # itself (arg_groups/ has arg_utils.py but no fields/ folder); add_cli_args calls
    # add_cli_args_from_dataclass(parser, ServerArgs) with the rules above.
    if not os.path.isdir(folder):
        tree = ast.parse(open(os.path.join(srt, "server_args.py")).read())
        local = dict(consts)
        local.update(module_constants(tree))
        rows += annotated_fields([n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ServerArgs"],
                                 local)
    return rows


def annotated_fields(classes, local):
    """The flag rows of the `A[T, "help"]` / `A[T, Arg(...)]` fields of `classes` (see sglang_fields)."""
    rows = []
    for cls in classes:
        for node in cls.body:
            if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                continue
            ann = node.annotation
            if not (isinstance(ann, ast.Subscript) and getattr(ann.value, "id", "") in ("A", "Annotated")):
                continue
            parts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if len(parts) < 2:
                continue
            typ, meta = parts[0], parts[1]
            kw = {}
            if isinstance(meta, ast.Call) and getattr(meta.func, "id", "") == "Arg":
                kw = {k.arg: k.value for k in meta.keywords if k.arg}
            elif not (isinstance(meta, ast.Constant) and isinstance(meta.value, str)):
                continue
            if isinstance(kw.get("no_cli"), ast.Constant) and kw["no_cli"].value is True:
                continue
            name = kw["cli_name"].value if isinstance(kw.get("cli_name"), ast.Constant) else \
                "--" + node.target.id.replace("_", "-")
            names = [name]
            if "aliases" in kw:
                names += literal_strings(kw["aliases"], local) or []
            kind, choices = "str", None
            if "choices" in kw:
                choices = literal_strings(kw["choices"], local)
            action = kw.get("action")
            if action is not None:
                an = getattr(action, "attr", getattr(action, "id", ""))
                if an == "BooleanOptionalAction":
                    kind = "flag"
                    names.append("--no-" + name[2:])
                elif "Deprecated" in an:
                    kind = "deprecated"
                elif an in ("store_true", "store_false"):
                    kind = "flag"
                rows.append((names, kind, choices))
                continue
            tnames = [n.id for n in ast.walk(typ) if isinstance(n, ast.Name)]
            lits = literal_choices(typ)
            tp = kw.get("type_parser")
            tpn = ast.unparse(tp) if tp is not None else ""
            if lits is not None:
                choices = choices or lits
            elif "bool" in tnames and tp is None:
                kind = "flag"
            elif "json" in tpn.lower():
                kind = "json"
            elif tp is not None:
                kind = "str"
            elif "int" in tnames:
                kind = "int"
            elif "float" in tnames:
                kind = "float"
            rows.append((names, kind, choices))
    return rows


def vllm_config_files(root):
    """The config dataclasses' source: the vllm/config/ package (0.10.x on), or the single
    vllm/config.py module of older releases (0.2.6 - 0.9.x)."""
    folder = os.path.join(root, "vllm/config")
    if os.path.isdir(folder):
        return [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".py")]
    single = os.path.join(root, "vllm/config.py")
    return [single] if os.path.exists(single) else []


def vllm_literals(root):
    """Type aliases NAME = Literal["a", "b", ...] in vllm/config (package or module) and the quantization package."""
    lits = {}
    files = vllm_config_files(root)
    files.append(os.path.join(root, "vllm/model_executor/layers/quantization/__init__.py"))
    for f in files:
        if not f.endswith(".py") or not os.path.exists(f):
            continue
        tree = ast.parse(open(f).read())
        for node in tree.body:
            target, value = None, None
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target, value = node.targets[0].id, node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                target, value = node.target.id, node.value
            if target and isinstance(value, ast.Subscript) and getattr(value.value, "id", "") == "Literal":
                s = value.slice
                elts = s.elts if isinstance(s, ast.Tuple) else [s]
                if all(isinstance(e, ast.Constant) for e in elts):
                    lits[target] = [str(e.value) for e in elts]
    return lits


def vllm_field_types(root, lits):
    """Config dataclass fields annotated with a Literal alias (or Literal[...] itself) -> choices."""
    fields = {}
    for f in vllm_config_files(root):
        tree = ast.parse(open(f).read())
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            for node in cls.body:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    ann = node.annotation
                    names = [n.id for n in ast.walk(ann) if isinstance(n, ast.Name)]
                    choice = None
                    for n in names:
                        if n in lits:
                            choice = lits[n]
                    if choice is None:
                        choice = literal_choices(ann)
                    kind = "str"
                    if "int" in names:
                        kind = "int"
                    if "float" in names:
                        kind = "float"
                    if "bool" in names:
                        kind = "flag"
                    fields[(cls.name, node.target.id)] = (kind, choice)
    return fields


def vllm(root):
    lits = vllm_literals(root)
    fields = vllm_field_types(root, lits)
    by_field = {}
    for (cls, name), v in fields.items():
        by_field.setdefault(name, v)
    rows = []
    # The server's own arguments moved to vllm/entrypoints/common/cli_args.py in later releases (0.33.0);
    # before cli_args.py existed (0.2.6) they were `parse_args` of vllm/entrypoints/openai/api_server.py.
    server = [r for r in ("vllm/entrypoints/openai/cli_args.py", "vllm/entrypoints/common/cli_args.py",
                          "vllm/entrypoints/openai/api_server.py")
              if os.path.exists(os.path.join(root, r))][:1]
    for rel in ["vllm/engine/arg_utils.py"] + server:
        tree = ast.parse(open(os.path.join(root, rel)).read())
        consts = module_constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                names = flags_of(node)
                if not names:
                    continue
                kind, choices = kind_of(node, consts, vllm=True)
                # `**cache_kwargs["block_size"]`: the config dataclass field's type gives kind and choices;
                # also inside `**{**cache_kwargs["enable_prefix_caching"], "default": None}` (vLLM 0.12+).
                spreads = []
                for kw in node.keywords:
                    if kw.arg is None and isinstance(kw.value, ast.Subscript):
                        spreads.append(kw.value)
                    elif kw.arg is None and isinstance(kw.value, ast.Dict):
                        spreads += [v for k, v in zip(kw.value.keys, kw.value.values)
                                    if k is None and isinstance(v, ast.Subscript)]
                for sub in spreads:
                    key = sub.slice
                    if isinstance(key, ast.Constant) and key.value in by_field:
                        fk, fc = by_field[key.value]
                        kind = fk if kind == "str" else kind
                        choices = choices or fc
                rows.append((names, kind, choices))
    return rows + vllm_frontend(root, server, by_field)


def vllm_frontend(root, server, by_field):
    """The server's own flags (`--host`, `--port`, `--api-key`, `--tool-call-parser`, …): fields of the
    `BaseFrontendArgs` / `FrontendArgs` dataclasses in the server's cli_args.py, registered by
    `FrontendArgs.add_cli_args` (0.19.0; `make_arg_parser` in earlier releases) as `--` + the field name
    with `-` for `_`, through `get_kwargs` (engine/arg_utils.py), which gives a bool field
    `argparse.BooleanOptionalAction` (so also `--no-NAME`), an int or float field its type, and a
    `Literal[...]` field its values as choices."""
    rows = []
    for rel in server:
        tree = ast.parse(open(os.path.join(root, rel)).read())
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            if cls.name not in ("BaseFrontendArgs", "FrontendArgs"):
                continue
            for node in cls.body:
                if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                    continue
                field = node.target.id
                if field.startswith("_") or "ClassVar" in ast.unparse(node.annotation):
                    continue
                names = [n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)]
                flag = "--" + field.replace("_", "-")
                choices = None
                for sub in ast.walk(node.annotation):
                    if isinstance(sub, ast.Subscript) and getattr(sub.value, "id", "") == "Literal":
                        sl = sub.slice
                        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                        if all(isinstance(e, ast.Constant) for e in elts):
                            choices = [str(e.value) for e in elts]
                if names == ["bool"]:
                    rows.append(([flag, "--no-" + flag[2:]], "flag", None))
                elif "int" in names and "str" not in names:
                    rows.append(([flag], "int", choices))
                elif "float" in names and "str" not in names:
                    rows.append(([flag], "float", choices))
                else:
                    rows.append(([flag], "str", choices))
    return rows


def main():
    engine, version, src = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = sglang(src) if engine == "sglang" else vllm(src)
    if engine == "sglang" and os.path.exists(os.path.join(os.path.dirname(src), "arg_groups", "arg_utils.py")):
        rows = sglang_fields(os.path.dirname(src)) + rows
    if engine == "sglang":
        print(f"# SGLang {version}: `python -m sglang.launch_server` arguments, from sglang/srt/server_args.py")
        print(f"# (ServerArgs.add_cli_args) of the sglang-{version} wheel on PyPI.")
        if os.path.isdir(os.path.join(os.path.dirname(src), "arg_groups", "fields")):
            print("# Plus the A[T, Arg(...)] fields of sglang/srt/arg_groups/fields/*.py (add_cli_args_from_dataclass).")
        elif os.path.exists(os.path.join(os.path.dirname(src), "arg_groups", "arg_utils.py")):
            print("# Plus the A[T, Arg(...)] fields of the ServerArgs dataclass (add_cli_args_from_dataclass).")
    elif not os.path.exists(os.path.join(src, "vllm/entrypoints/openai/cli_args.py")) and \
            not os.path.exists(os.path.join(src, "vllm/entrypoints/common/cli_args.py")):
        # vLLM 0.2.x: no `vllm` console script; the server is `python -m vllm.entrypoints.openai.api_server`.
        print(f"# vLLM {version}: `python -m vllm.entrypoints.openai.api_server` arguments, from vllm/engine/arg_utils.py")
        print(f"# (EngineArgs / AsyncEngineArgs.add_cli_args) and vllm/entrypoints/openai/api_server.py (parse_args)")
        print(f"# of the vllm-{version} wheel on PyPI; choices from the vllm/config.py Literal types.")
    else:
        print(f"# vLLM {version}: `vllm serve` arguments, from vllm/engine/arg_utils.py (EngineArgs.add_cli_args)")
        print(f"# and vllm/entrypoints/{{openai,common}}/cli_args.py of the vllm-{version} sdist or wheel on PyPI; choices from the")
        print("# Literal types of the vllm/config dataclass fields the arguments are derived from.")
    print("# Written by tests/data/engine-args/extract.py. Columns (tab-separated): flag names (aliases joined")
    print("# by |), value kind (flag | int | float | str | json | deprecated), choices (comma-separated, optional).")
    seen = set()
    for names, kind, choices in rows:
        key = "|".join(names)
        if key in seen:
            continue
        seen.add(key)
        line = f"{key}\t{kind}"
        if choices:
            line += "\t" + ",".join(choices)
        print(line)


main()
