"""`exclude` rules: a tiny, safe expression language over a workload's options.

A rule such as ``rw == 'randwrite' and iodepth > 64`` drops every expanded
workload it is true for. It is parsed with `ast` and evaluated by walking
only the node types allowed here (names, string/number/bool literals, lists
or tuples of literals, comparisons, and/or/not), so a plan can never run
code. Comparisons with a number, or ordering comparisons (<, >=, ...), turn
fio values into numbers with their suffixes ("64k", "30s"); == and != with a
string compare the text as written.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from iolab.errors import UserError
from iolab.models.job_options import JobOptions
from iolab.models.option_values import option_number
from iolab.numbers import real, whole

Literal = str | int | float | bool
_ORDERING = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_EQUALITY = {ast.Eq: operator.eq, ast.NotEq: operator.ne}


@dataclass(frozen=True)
class ExcludeRule:
    """A checked rule; `matches(options)` says whether a workload is excluded."""

    text: str
    where: str
    _tree: ast.expr

    def matches(self, options: Mapping[str, str]) -> bool:
        """True when the rule holds for these options (the workload is dropped)."""
        return bool(_evaluate(self._tree, JobOptions(options), self))


def compile_exclude(text: str, known_names: Iterable[str], where: str) -> ExcludeRule:
    """Parse and check a rule; `where` names the file and field for error messages.

    Every name must be an axis or an option the plan sets, so a typo fails
    at load time instead of silently excluding nothing.
    """
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise UserError(f"{where}: cannot parse {text[:60]!r}: {exc.msg}") from None
    except ValueError:  # a literal of thousands of digits (Python's own limit)
        raise UserError(f"{where}: a number of thousands of digits, beyond what a 64-bit integer holds") from None
    known = set(known_names)
    if not isinstance(tree, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        raise UserError(f"{where}: {text!r} is not a condition (write e.g. \"rw == 'randwrite' and iodepth > 64\")")
    for node in ast.walk(tree):
        _check_node(node, text, where, known)
    return ExcludeRule(text=text, where=where, _tree=tree)


_ALLOWED = (
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.Compare,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.In,
    ast.NotIn,
    *_ORDERING,
    *_EQUALITY,
)


def _check_node(node: ast.AST, text: str, where: str, known: set[str]) -> None:
    """Reject any syntax outside the small allowed subset; each kind of node has its own check."""
    if not isinstance(node, _ALLOWED):
        raise UserError(
            f"{where}: {text!r} uses {type(node).__name__}, which exclude rules do not allow "
            "(use names, literals, comparisons, and/or/not)"
        )
    for kinds, check in _NODE_CHECKS:
        if isinstance(node, kinds):
            check(node, where, f"{where}: {text!r}", known)


def _check_unary(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """Only `not`: a minus sign or `~` has no meaning for fio options."""
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        raise UserError(f"{said}: only 'not' is allowed as a unary operator")


def _check_constant(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """Strings and numbers only, numbers bounded as every number of a plan is."""
    assert isinstance(node, ast.Constant)
    if not isinstance(node.value, (str, int, float, bool)):
        raise UserError(f"{said}: literal {node.value!r} is not a string or number")
    if type(node.value) in (int, float):
        try:  # bounded as every number of a plan is: 10**400 or 1e999 here was an OverflowError when compared
            real(str(node.value), where) if type(node.value) is float else whole(str(node.value), where)
        except UserError:
            raise UserError(f"{where}: a number beyond what a 64-bit integer or a double holds") from None


def _check_name(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """A name must be an axis or option of the sweep, or the rule could never match."""
    assert isinstance(node, ast.Name)
    if node.id not in known:
        names = ", ".join(sorted(known)) or "none"
        raise UserError(f"{said} names {node.id!r}, which is not an axis or option (known: {names})")


def _check_sequence(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """A list holds literals only, so evaluating it reads nothing."""
    assert isinstance(node, (ast.List, ast.Tuple))
    if not all(isinstance(e, ast.Constant) for e in node.elts):
        raise UserError(f"{said}: lists may hold only literals")


def _check_compare(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """Lists only on the right of `in`, where membership is defined."""
    assert isinstance(node, ast.Compare)
    lefts = [node.left, *node.comparators[:-1]]
    for op, left, right in zip(node.ops, lefts, node.comparators, strict=True):
        is_list = isinstance(right, (ast.List, ast.Tuple))
        if isinstance(op, (ast.In, ast.NotIn)) != is_list or isinstance(left, (ast.List, ast.Tuple)):
            raise UserError(f"{said}: a list may appear only on the right of 'in' / 'not in'")


def _check_combination(node: ast.AST, where: str, said: str, known: set[str]) -> None:
    """and/or/not combine comparisons: a bare name would test Python truthiness."""
    operands = node.values if isinstance(node, ast.BoolOp) else [node.operand] if isinstance(node, ast.UnaryOp) else []
    if any(not isinstance(o, (ast.Compare, ast.BoolOp, ast.UnaryOp)) for o in operands):
        raise UserError(f"{said}: and/or/not combine comparisons, not bare names or literals")


_NODE_CHECKS: tuple[tuple[type | tuple[type, ...], Callable[[ast.AST, str, str, set[str]], None]], ...] = (
    (ast.UnaryOp, _check_unary),
    (ast.Constant, _check_constant),
    (ast.Name, _check_name),
    ((ast.List, ast.Tuple), _check_sequence),
    (ast.Compare, _check_compare),
    ((ast.BoolOp, ast.UnaryOp), _check_combination),
)


def _evaluate(node: ast.expr, options: JobOptions, rule: ExcludeRule) -> object:
    if isinstance(node, ast.BoolOp):
        values = (_evaluate(v, options, rule) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        return not _evaluate(node.operand, options, rule)
    if isinstance(node, ast.Compare):
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if not _compare(op, left, right, options, rule):
                return False
            left = right
        return True
    raise UserError(f"{rule.where}: {rule.text!r} is not a comparison")


def _compare(op: ast.cmpop, left: ast.expr, right: ast.expr, options: JobOptions, rule: ExcludeRule) -> bool:
    """One comparison; an option a workload does not set is never equal to anything."""
    key = left.id if isinstance(left, ast.Name) else right.id if isinstance(right, ast.Name) else ""
    if isinstance(op, (ast.In, ast.NotIn)):
        return _membership(op, key, left, right, options, rule)
    a, b = _operand(left, options), _operand(right, options)
    if a is None or b is None:
        return isinstance(op, ast.NotEq)
    if type(op) in _EQUALITY:
        equal = _equal(key, a, b)
        return equal if isinstance(op, ast.Eq) else not equal
    return _ordered(op, key, a, b, rule)


def _membership(
    op: ast.cmpop, key: str, left: ast.expr, right: ast.expr, options: JobOptions, rule: ExcludeRule
) -> bool:
    """`in` / `not in` a list of literals; an unset option is in no list."""
    value = _operand(left, options)
    if not isinstance(right, (ast.List, ast.Tuple)):
        raise UserError(f"{rule.where}: {rule.text!r}: 'in' needs a list of literals on its right")
    members = [_constant(e) for e in right.elts if isinstance(e, ast.Constant)]
    found = value is not None and any(_equal(key, value, m) for m in members)
    return found if isinstance(op, ast.In) else not found


def _ordered(op: ast.cmpop, key: str, a: Literal, b: Literal, rule: ExcludeRule) -> bool:
    """<, <=, >, >= on numbers or fio sizes and times; anything else cannot be ordered."""
    x, y = _number(key, a), _number(key, b)
    if x is None or y is None:
        raise UserError(f"{rule.where}: {rule.text!r}: cannot order {a!r} and {b!r} (not numbers or fio sizes/times)")
    compare: Callable[[float, float], bool] = _ORDERING[type(op)]
    return compare(x, y)


def _operand(node: ast.expr, options: JobOptions) -> Literal | None:
    """A name's value as the workload gave it (under any of fio's names for it), else the literal."""
    if isinstance(node, ast.Name):
        return options.given(node.id)
    assert isinstance(node, ast.Constant)
    return _constant(node)


def _constant(node: ast.Constant) -> Literal:
    """A literal's value, narrowed to what `_check_node` lets through (it rejected None, bytes and the rest)."""
    if not isinstance(node.value, (str, int, float, bool)):
        raise TypeError(f"exclude literal {node.value!r} should have been rejected by compile_exclude")
    return node.value


def _equal(key: str, a: Literal, b: Literal) -> bool:
    """Strings compare as text; a number on either side compares as a number."""
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    x, y = _number(key, a), _number(key, b)
    return x is not None and x == y


def _number(key: str, value: Literal) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return option_number(key, value)
