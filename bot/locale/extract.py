"""Find every message the bot translates, for `pybabel extract` (see babel.cfg).

Babel's own Python extractor sees only the literals written in a call: `t("Ready", …)`.
The bot also hands texts over through names: a dict of texts (`t(POWER_WORDS[word], …)`),
a loop over tuples, a variable, a parameter (`Answers.done(text, …)` and its callers). This
extractor follows such a name to the literals bound to it (in the function, the module, an
imported module, or at every call of the function whose parameter it is) and refuses a
message it cannot follow, so that no text reaches `t()` without being in the template.

Command, group and option names come out with the context "command name": the `name=` of
`app_commands.command(...)`, the values of `app_commands.rename(...)`, the parameters of a
command that are not renamed, and a `group_name=locale_str(...)` (a plain `group_name`, like
the root command's, is never translated).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
# The packages whose code is read: names may come from any of them (tables.service has the
# computer levels), while tests and the sandbox are never read.
PACKAGES = ("bot", "tables", "engine")
# A keyword's number of message arguments (`tn(singular, plural, …)`); the others have one.
MESSAGE_ARGUMENTS = {"tn": 2}
# The keyword the names come out under: `-k command_name:1c,2` makes its first value the
# context and its second the message.
NAME_KEYWORD = "command_name"
NAME_CONTEXT = "command name"
NAME_COMMENT = "Discord name: lowercase letters, digits, - or _, no spaces, at most 32 characters"
TEXT_COMMENT = "Discord command text: at most 100 characters"
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
NESTED = (*SCOPES, ast.ClassDef, *COMPREHENSIONS)


class Untraceable(Exception):
    """A message reaches a translation call through something the extractor can't follow."""

    def __init__(self, module: Module, node: ast.AST, why: str) -> None:
        super().__init__(f"{module.path}:{getattr(node, 'lineno', 0)}: {why}")


@dataclass(frozen=True)
class Found:
    """A message: where its text is written, its keyword, the texts and a translator note."""

    path: Path
    lineno: int
    keyword: str
    messages: tuple[str, ...]
    comment: str | None = None


@dataclass(frozen=True, eq=False)
class Module:
    """A parsed source file, with every node's parent."""

    name: str
    path: Path
    tree: ast.Module
    parents: Mapping[ast.AST, ast.AST]

    @classmethod
    def read(cls, name: str, path: Path) -> Module:
        """Parse a source file."""
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        return cls(name, path, tree, parents)


Value = tuple[ast.expr, Module]


def callee(call: ast.Call) -> str | None:
    """Name what a call calls: `t` for `t(…)` and for `i18n.t(…)`."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def text_of(node: ast.expr | None) -> ast.Constant | None:
    """Give the literal text of `"x"` or `locale_str("x")`, else None."""
    if isinstance(node, ast.Call) and callee(node) == "locale_str" and node.args:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node
    return None


def names_in(target: ast.expr | None) -> set[str]:
    """Give every name an assignment target binds."""
    if target is None:
        return set()
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def local_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Walk a scope's statements without entering nested functions, classes or comprehensions."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, NESTED):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


class Project:
    """The packages' sources, and how a message reaches a translation call in them."""

    def __init__(self, root: Path = ROOT, packages: Collection[str] = PACKAGES) -> None:
        self.root = root
        self.modules: dict[str, Module] = {}
        for package in packages:
            for path in sorted((root / package).rglob("*.py")):
                parts = path.relative_to(root).with_suffix("").parts
                name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                self.modules[name] = Module.read(name, path)
        self._tracing: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ the messages

    def messages(self, keywords: Collection[str]) -> tuple[list[Found], list[str]]:
        """Find every message of the keywords' calls; say what could not be followed."""
        found: dict[Found, None] = {}
        problems: list[str] = []
        functions = set(keywords) - {NAME_KEYWORD}
        for module in self.modules.values():
            for node in ast.walk(module.tree):
                try:
                    if isinstance(node, ast.Call) and callee(node) in functions:
                        found.update(dict.fromkeys(self._call(node, module)))
                    if NAME_KEYWORD in keywords:
                        found.update(dict.fromkeys(self._names(node, module)))
                except Untraceable as error:
                    problems.append(str(error))
        return list(found), problems

    def _call(self, call: ast.Call, module: Module) -> Iterator[Found]:
        keyword = callee(call) or ""
        count = MESSAGE_ARGUMENTS.get(keyword, 1)
        if len(call.args) < count or any(isinstance(a, ast.Starred) for a in call.args[:count]):
            raise Untraceable(module, call, f"{keyword}() without its message as an argument")
        comment = TEXT_COMMENT if keyword == "locale_str" else None
        if count > 1:
            texts = [text_of(arg) for arg in call.args[:count]]
            if any(text is None for text in texts):
                raise Untraceable(module, call, f"{keyword}() takes its messages as literals")
            first = texts[0]
            assert first is not None
            messages = tuple(str(text.value) for text in texts if text is not None)
            yield Found(module.path, first.lineno, keyword, messages, comment)
            return
        for constant, where in self.trace(call.args[0], module):
            yield Found(where.path, constant.lineno, keyword, (str(constant.value),), comment)

    def _names(self, node: ast.AST, module: Module) -> Iterator[Found]:
        """Find command, group and option names: the context "command name"."""
        named: list[ast.Constant | None] = []
        if isinstance(node, ast.Call) and callee(node) in ("command", "Group"):
            named += [text_of(k.value) for k in node.keywords if k.arg == "name"]
        elif isinstance(node, ast.Call) and callee(node) == "rename":
            named += [text_of(k.value) for k in node.keywords]
        elif isinstance(node, ast.ClassDef):
            named += [
                text_of(k.value)
                for k in node.keywords
                if k.arg == "group_name" and isinstance(k.value, ast.Call)
            ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and self._is_command(node):
            renamed = {
                k.arg
                for d in node.decorator_list
                if isinstance(d, ast.Call) and callee(d) == "rename"
                for k in d.keywords
            }
            for arg in node.args.args:
                if arg.arg not in ("self", "interaction", *renamed):
                    yield Found(
                        module.path, arg.lineno, NAME_KEYWORD, (NAME_CONTEXT, arg.arg), NAME_COMMENT
                    )
        for constant in named:
            if constant is None:
                raise Untraceable(module, node, "a command name is not a literal")
            yield Found(
                module.path,
                constant.lineno,
                NAME_KEYWORD,
                (NAME_CONTEXT, str(constant.value)),
                NAME_COMMENT,
            )

    @staticmethod
    def _is_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        return any(
            isinstance(d, ast.Call) and callee(d) == "command" for d in function.decorator_list
        )

    # ------------------------------------------------------------------ following values

    def trace(self, node: ast.expr, module: Module) -> Iterator[tuple[ast.Constant, Module]]:
        """Give every literal text that `node` may be, or refuse what can't be followed."""
        key = (id(node), id(module))
        if key in self._tracing:
            return  # a cycle: what it reaches is found on the other way round
        self._tracing.add(key)
        try:
            yield from self._trace(node, module)
        finally:
            self._tracing.discard(key)

    def _trace(self, node: ast.expr, module: Module) -> Iterator[tuple[ast.Constant, Module]]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node, module
        elif isinstance(node, ast.IfExp):
            yield from self.trace(node.body, module)
            yield from self.trace(node.orelse, module)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                yield from self.trace(value, module)
        elif isinstance(node, ast.Subscript):
            for item, where in self.items(node.value, module, values=True):
                yield from self.trace(item, where)
        elif isinstance(node, ast.Name):
            for value, where in self.bindings(node, module):
                yield from self.trace(value, where)
        else:
            raise Untraceable(module, node, f"can't follow {ast.unparse(node)!r} to its texts")

    def items(self, node: ast.expr, module: Module, *, values: bool) -> Iterator[Value]:
        """Give what indexing (`values`) or iterating a container yields, as source nodes."""
        if isinstance(node, ast.Dict):
            yield from ((v, module) for v in (node.values if values else node.keys) if v)
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            yield from ((element, module) for element in node.elts)
        elif isinstance(node, ast.Name):
            for value, where in self.bindings(node, module):
                yield from self.items(value, where, values=values)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "values"
        ):
            yield from self.items(node.func.value, module, values=True)
        else:
            raise Untraceable(module, node, f"can't see into {ast.unparse(node)!r}")

    def bindings(self, name: ast.Name, module: Module) -> Iterator[Value]:
        """Give every value a name may hold where it is read."""
        node: ast.AST = name
        while node in module.parents:
            node = module.parents[node]
            if isinstance(node, COMPREHENSIONS):
                for generator in node.generators:
                    if name.id in names_in(generator.target):
                        yield from self._loop(generator.target, generator.iter, name.id, module)
                        return
            elif isinstance(node, SCOPES):
                found = list(self._in_function(node, name, module))
                if found:
                    yield from found
                    return
        yield from self.global_bindings(name.id, module, name)

    def global_bindings(self, name: str, module: Module, at: ast.AST) -> Iterator[Value]:
        """Give the values a module-level name holds, following `from … import name`."""
        found = list(self._assigned(module.tree.body, name, module))
        for node in local_nodes(module.tree.body):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        source = self.modules.get(node.module)
                        if source is None:
                            raise Untraceable(module, node, f"{node.module} is not read")
                        found += self.global_bindings(alias.name, source, node)
        if not found:
            raise Untraceable(module, at, f"can't find what {name!r} is")
        yield from found

    def _in_function(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        name: ast.Name,
        module: Module,
    ) -> Iterator[Value]:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        every = [*positional, *arguments.kwonlyargs]
        if any(arg.arg == name.id for arg in every):
            yield from self._passed(function, name.id, module)
            return
        if isinstance(function, ast.Lambda):
            return
        yield from self._assigned(function.body, name.id, module)

    def _assigned(self, body: list[ast.stmt], name: str, module: Module) -> Iterator[Value]:
        """Give the values a scope's statements bind to a name."""
        for node in local_nodes(body):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    yield from self._unpack(target, node.value, name, module)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                yield from self._unpack(node.target, node.value, name, module)
            elif isinstance(node, ast.For | ast.AsyncFor) and name in names_in(node.target):
                yield from self._loop(node.target, node.iter, name, module)
            elif isinstance(node, ast.AugAssign) and name in names_in(node.target):
                raise Untraceable(module, node, f"{name!r} is built, not written")
            elif isinstance(node, ast.withitem) and name in names_in(node.optional_vars):
                raise Untraceable(module, node.context_expr, f"{name!r} comes from a `with`")

    def _unpack(
        self, target: ast.expr, value: ast.expr, name: str, module: Module
    ) -> Iterator[Value]:
        """Give what an assignment of `value` to `target` binds to a name."""
        if isinstance(target, ast.Name):
            if target.id == name:
                yield value, module
        elif isinstance(target, ast.Tuple | ast.List) and name in names_in(target):
            if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(target.elts):
                raise Untraceable(module, value, f"can't unpack {ast.unparse(value)!r}")
            for each_target, each_value in zip(target.elts, value.elts, strict=True):
                yield from self._unpack(each_target, each_value, name, module)

    def _loop(
        self, target: ast.expr, iterable: ast.expr, name: str, module: Module
    ) -> Iterator[Value]:
        """Give what a loop binds to a name, element by element."""
        for element, where in self.items(iterable, module, values=False):
            yield from self._unpack(target, element, name, where)

    def _passed(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        name: str,
        module: Module,
    ) -> Iterator[Value]:
        """Give what every call of a function passes for its parameter."""
        if isinstance(function, ast.Lambda):
            raise Untraceable(module, function, f"a lambda's parameter {name!r}")
        arguments = function.args
        positional = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
        method = isinstance(module.parents.get(function), ast.ClassDef) and positional[:1] in (
            ["self"],
            ["cls"],
        )
        index = positional.index(name) - method if name in positional else None
        calls = 0
        for other in self.modules.values():
            for call in ast.walk(other.tree):
                if not isinstance(call, ast.Call) or callee(call) != function.name:
                    continue
                passed = [k.value for k in call.keywords if k.arg == name]
                if not passed and index is not None and index < len(call.args):
                    passed = [call.args[index]]
                for value in passed:
                    calls += 1
                    yield value, other
        if not calls:
            raise Untraceable(module, function, f"nobody passes {function.name}() its {name!r}")


@cache
def project_messages(
    root: Path = ROOT, keywords: frozenset[str] = frozenset({"t", "tn", "locale_str"})
) -> tuple[tuple[Found, ...], tuple[str, ...]]:
    """Find every message in the packages under `root`, once a process."""
    found, problems = Project(root).messages(keywords)
    return tuple(found), tuple(problems)


def extract(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, tuple[str, ...], list[str]]]:
    """Yield one file's messages to Babel; refuse the run if any message can't be followed."""
    found, problems = project_messages(ROOT, frozenset(keywords))
    if problems:
        raise ValueError("messages the extractor can't follow:\n" + "\n".join(problems))
    path = Path(getattr(fileobj, "name", "")).resolve()
    for each in sorted(found, key=lambda f: f.lineno):
        if each.path == path:
            yield each.lineno, each.keyword, each.messages, [each.comment] if each.comment else []
