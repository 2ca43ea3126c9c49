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
`deprecated` (a deprecated flag that takes no value), `alias-KIND` (SGLang's deprecated alias storing a
value of KIND, `DeprecatedAliasStoreAction`); `int-si` for SGLang's human_readable_int; the JSON parsers apart, as each words its error:
`json` for argparse's own `type=json.loads`, `json-parse` for vLLM's `parse_type(json.loads)`, `json-list`
for SGLang's `json_list_type`, `json-dataclass` for vLLM's pydantic `parse_dataclass`), and, when the engine restricts the values, a tab and the comma-separated choices
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


def type_kind(v, kind="str"):
    """The kind of a `type=` parser other than int / float (survey of every `type=` in the SGLang 0.4.0 -
    0.5.23 and vLLM 0.2.6 - 0.34.0 lists' sources): `json.loads` -> `json` (argparse reports "invalid
    loads value"); vLLM's `parse_type(json.loads)` / `optional_type(json.loads)` -> `json-parse` ("Value
    V cannot be converted to ..."); SGLang's `json_list_type` -> `json-list` ("Invalid JSON list: V.
    ..."); SGLang's `human_readable_int` (0.5.10 on: `--context-length`, `--max-total-tokens`,
    `--max-prefill-tokens`) -> `int-si` (SI k/M/G/T and IEC Ki/Mi/Gi/Ti suffixes); `str`, `nullable_str`,
    `optional_type(str)`, `bool` (any string), `X.from_cli` and lambdas -> `str`; `PoolerConfig.from_json`
    -> `json`."""
    text = ast.unparse(v)
    if text in ("json.loads", "loads", "PoolerConfig.from_json"):
        return "json"
    if text.startswith(("parse_type(", "optional_type(")):
        return "json-parse" if "json" in text else kind
    if text == "json_list_type":
        return "json-list"
    if text == "human_readable_int":
        return "int-si"
    return kind


def kind_of(call, consts, vllm=False):
    kind, choices, alias = "str", None, False
    for kw in call.keywords:
        if kw.arg == "action":
            v = kw.value
            name = v.value if isinstance(v, ast.Constant) else getattr(v, "attr", getattr(v, "id", ""))
            if name in ("store_true", "store_false", "BooleanOptionalAction"):
                kind = "flag"
            elif name == "DeprecatedAliasStoreAction":
                # cmdsurvey63: SGLang's deprecated alias that stores its value (0.5.13 `--nsa-prefill-backend`,
                # 0.5.14 `--mamba-scheduler-strategy`, `--cuda-graph-max-bs`: arg_groups/argparse_actions.py
                # `setattr(namespace, self.dest, values)` after a warning): it takes a value of its type,
                # so the kind is `alias-` + that value's kind (`alias-int`, `alias-str`).
                alias = True
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
                # config field's type gives it from 0.11.0 (SGLang's own suffixes: `int-si`).
                kind = "int"
            else:
                kind = type_kind(v, kind)
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
    if alias:
        kind = "alias-" + kind
    return kind, choices


def flags_of(call):
    """The option strings of an `add_argument` call, in the order declared (argparse names a flag in
    its errors by all of them joined with `/`: `--speculative-config/-sc`); single-dash aliases (vLLM's
    `-tp`, `-sc`, `-O`) are kept after the first `--` name, none without one."""
    names = []
    for a in call.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-"):
            names.append(a.value)
    return names if any(n.startswith("--") for n in names) else []


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
            elif tp is not None:
                kind = type_kind(tp)
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


def vllm_dataclasses(root):
    """Names of the config classes (`@config` / `@dataclass` decorated) in vllm/config: a field of one of
    these types is parsed as JSON by `parse_dataclass` (see vllm_field_types)."""
    names = set()
    for f in vllm_config_files(root):
        for cls in [n for n in ast.parse(open(f).read()).body if isinstance(n, ast.ClassDef)]:
            decorators = [ast.unparse(d) for d in cls.decorator_list]
            if any(d.split("(")[0].split(".")[-1] in ("dataclass", "config") for d in decorators):
                names.add(cls.name)
    return names


def union_members(ann):
    """The members of a type annotation as vLLM's `get_type_hints` (engine/arg_utils.py) flattens it:
    `Union` / `Optional` / `X | Y` split, `Annotated[T, ...]` and `SkipValidation[T]` give T, string
    forward references parsed."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return union_members(ann.left) + union_members(ann.right)
    if isinstance(ann, ast.Subscript) and getattr(ann.value, "id", "") in ("Optional", "Union", "Annotated",
                                                                            "SkipValidation"):
        s = ann.slice
        elts = s.elts if isinstance(s, ast.Tuple) else [s]
        # pydantic's `SkipValidation[T]` is `Annotated[T, SkipValidation()]` at run time.
        if ann.value.id in ("Annotated", "SkipValidation"):
            elts = elts[:1]
        if ann.value.id == "Optional":
            elts = list(elts) + [ast.Constant(None)]
        return [m for e in elts for m in union_members(e)]
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return union_members(ast.parse(ann.value, mode="eval").body)
        except SyntaxError:
            return [ann]
    return [ann]


def literal_values(node, lits):
    """The values of `Literal[...]`, nested Literals and Literal aliases flattened as `typing.get_args`
    does (0.9.1 `task: Literal[TaskOption, Literal["draft"]]`); None when a member is neither."""
    s = node.slice
    out = []
    for e in s.elts if isinstance(s, ast.Tuple) else [s]:
        if isinstance(e, ast.Constant):
            out.append(str(e.value))
        elif isinstance(e, ast.Name) and e.id in lits:
            out += lits[e.id]
        elif isinstance(e, ast.Subscript) and head(e) == "Literal" and literal_values(e, lits) is not None:
            out += literal_values(e, lits)
        else:
            return None
    return out


def head(member):
    """`list` of `list[int]`, `int` of `int`, `None` of `None`: the member's outer name."""
    if isinstance(member, ast.Subscript):
        member = member.value
    if isinstance(member, ast.Constant) and member.value is None:
        return "None"
    return getattr(member, "id", getattr(member, "attr", None))


def vllm_field_types(root, lits):
    """(class, field) of the config dataclasses -> (kind, choices), by vLLM's `_compute_kwargs` /
    `get_kwargs` (engine/arg_utils.py; 0.8.5 - 0.34.0 read), which tests the annotation's union members
    in this order: a config dataclass -> `parse_dataclass` (pydantic `TypeAdapter(cls).validate_json`:
    kind `json-dataclass`; from 0.9.1, whose arg_utils.py first has the `is_dataclass` test); bool ->
    BooleanOptionalAction (`flag`); Literal -> its values as choices; tuple / list / set -> the
    element's type (nargs); int -> `int` (human-readable for a few fields: scenario/extra_args.rs
    HUMAN_READABLE); float; a dict beside str or a non-builtin type -> `union_dict_and_str` (any string,
    JSON when braced: `str`); any other dict -> `parse_type(json.loads)` (0.8.5: `optional_type(json.loads)`),
    kind `json-parse`; else str."""
    fields = {}
    dataclasses = vllm_dataclasses(root)
    src = open(os.path.join(root, "vllm/engine/arg_utils.py")).read()
    dataclass_branch = "is_dataclass(th)" in src
    plain = {"int", "float", "str", "bool", "dict", "Dict", "list", "List", "tuple", "Tuple", "set", "Set",
             "None", "Literal", "bytes"}
    for f in vllm_config_files(root):
        tree = ast.parse(open(f).read())
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            for node in cls.body:
                if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                    continue
                members = union_members(node.annotation)
                heads = [head(m) for m in members]
                # Two Literal aliases in one union (0.8.5 `guided_decoding_backend`): the last, as before.
                lit = next((lits[h] for h in reversed(heads) if h in lits), None)
                lit = lit or next((literal_values(m, lits) for m in members if head(m) == "Literal"), None)
                seq = next((m for m in members if head(m) in ("list", "List", "tuple", "Tuple", "set", "Set")),
                           None)
                choice = None
                if dataclass_branch and any(h in dataclasses for h in heads):
                    kind = "json-dataclass"
                elif "bool" in heads:
                    kind = "flag"
                elif lit is not None and "str" in heads:
                    # `literal_to_kwargs`: a union with str gets the values as `metavar`, no choices.
                    kind = "str"
                elif lit is not None:
                    # `Optional[Literal[...]]`: `optional_type`, and None appended to the choices
                    # (0.8.5 - 0.34.0), so the word "None" parses.
                    kind, choice = "str", lit + (["None"] if "None" in heads else [])
                elif seq is not None:
                    elem = seq.slice.elts[0] if isinstance(getattr(seq, "slice", None), ast.Tuple) else \
                        getattr(seq, "slice", None)
                    eh = head(elem) if elem is not None else "str"
                    kind = eh if eh in ("int", "float") else "str"
                    choice = lits.get(eh) or (literal_choices(elem) if eh == "Literal" else None)
                elif "int" in heads:
                    kind = "int"
                elif "float" in heads:
                    kind = "float"
                elif any(h in ("dict", "Dict") for h in heads):
                    other = any(h == "str" or (h is not None and h not in plain) for h in heads)
                    kind = "str" if other else "json-parse"
                else:
                    kind = "str"
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
        # `model_kwargs = get_kwargs(ModelConfig)`: which class a spread `**model_kwargs["x"]` reads, and
        # `vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)` (0.10.1.1 on): a parser
        # set after get_kwargs.
        owner, retyped = {}, {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                t, v = node.targets[0], node.value
                if isinstance(t, ast.Name) and isinstance(v, ast.Call) and getattr(v.func, "id", "") == "get_kwargs" \
                        and v.args and isinstance(v.args[0], ast.Name):
                    owner[t.id] = v.args[0].id
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and t.slice.value == "type" \
                        and isinstance(t.value, ast.Subscript) and isinstance(t.value.slice, ast.Constant):
                    retyped[t.value.slice.value] = type_kind(v)
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
                    cls = owner.get(getattr(sub.value, "id", ""))
                    if isinstance(key, ast.Constant) and ((cls, key.value) in fields or key.value in by_field):
                        fk, fc = fields.get((cls, key.value)) or by_field[key.value]
                        kind = fk if kind == "str" else kind
                        choices = choices or fc
                        if key.value in retyped:
                            kind = retyped[key.value]
                rows.append((names, kind, choices))
    return rows + vllm_frontend(root, server, by_field)


def has_frontend_classes(root):
    """Whether the server's cli_args.py declares its flags as BaseFrontendArgs / FrontendArgs fields."""
    for rel in ("vllm/entrypoints/openai/cli_args.py", "vllm/entrypoints/common/cli_args.py"):
        f = os.path.join(root, rel)
        if os.path.exists(f) and any(isinstance(n, ast.ClassDef) and n.name in ("BaseFrontendArgs", "FrontendArgs")
                                     for n in ast.parse(open(f).read()).body):
            return True
    return False


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
        if has_frontend_classes(src):
            print("# Plus (issue #17, flags) the server's BaseFrontendArgs / FrontendArgs dataclass fields of the same")
            print("# cli_args.py (`--host`, `--port`, `--api-key`, `--tool-call-parser`, …), appended below by extract.py's vllm_frontend.")
    print("# Written by tests/data/engine-args/extract.py. Columns (tab-separated): flag names (aliases joined")
    print("# by |), value kind (flag | int | int-si | float | str | json | json-parse | json-list | json-dataclass |")
    print("# deprecated | alias-KIND: see extract.py type_kind / vllm_field_types / kind_of), choices (comma-separated,")
    print("# optional).")
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
