"""Mutation operators: mutmut's (a maintained library, libcst-based) plus PyTorch-specific ones.

mutmut's `mutation_operators` is a list of `(libcst node type, function)` pairs, each function
yielding replacement nodes for one node. The operators below follow the same contract, so both
lists run through mutmut's own `MutationVisitor` (which skips docstrings, type annotations and
default arguments). Every operator says in its docstring which mistake it stands for.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from mutmut.mutation.mutators import mutation_operators as MUTMUT_OPERATORS

# Methods / functions whose small integer arguments are dimensions.
DIM_CALLS = frozenset({
    "sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "norm",
    "softmax", "log_softmax", "logsumexp", "cumsum", "cumprod", "cat", "concat", "stack", "unsqueeze",
    "squeeze", "flatten", "gather", "scatter", "scatter_add", "index_select", "transpose", "swapaxes",
    "movedim", "narrow", "chunk", "split", "unbind", "flip", "roll", "all", "any", "sort", "argsort",
    "topk", "median", "count_nonzero", "diff", "normalize", "expand_dims", "repeat_interleave", "select",
})
DIM_KEYWORDS = frozenset({"dim", "axis", "dim0", "dim1", "start_dim", "end_dim", "dims"})
FLAG_KEYWORDS = frozenset({"keepdim", "keepdims", "retain_graph", "create_graph", "non_blocking", "inplace",
                           "requires_grad", "allow_unused", "unbiased", "largest", "sorted", "descending",
                           "copy", "materialize_grads", "strict"})
KEEPDIM_CALLS = frozenset({"sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax",
                           "argmin", "norm", "logsumexp", "all", "any", "median", "count_nonzero"})
GRAD_CALLS = frozenset({"backward", "grad"})
DROPPABLE_METHODS = frozenset({"contiguous", "detach", "clone", "to", "item", "cpu", "cuda", "float",
                               "double", "half", "requires_grad_", "detach_", "coalesce", "tolist", "numpy",
                               "type_as", "view_as", "reshape_as", "expand_as", "t", "copy"})
DROPPABLE_STATEMENTS = frozenset({"zero_grad", "zero_", "step", "retain_grad", "backward", "register_hook",
                                  "requires_grad_", "eval", "train", "append", "copy_", "add_", "mul_",
                                  "sub_", "div_", "fill_", "clamp_", "detach_", "update"})
GRAD_MODES = frozenset({"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"})
# x.add(y) <-> x.add_(y): in-place methods with an out-of-place twin
INPLACE_TWINS = frozenset({"add", "sub", "mul", "div", "clamp", "clamp_min", "clamp_max", "relu", "sigmoid",
                           "tanh", "exp", "log", "pow", "neg", "abs", "sqrt", "t", "transpose", "unsqueeze",
                           "squeeze", "masked_fill", "scatter", "scatter_add", "index_add", "index_fill",
                           "fill", "zero", "normal", "uniform", "copy", "floor", "ceil", "round", "sign",
                           "addmm", "addcmul", "addcdiv", "lerp", "detach", "requires_grad", "fill_diagonal",
                           "reciprocal", "square", "sin", "cos"})
OUT_OF_PLACE_EXISTS = INPLACE_TWINS - {"zero", "fill", "normal", "uniform", "copy", "requires_grad",
                                       "fill_diagonal"}
# calls whose two first positional arguments commute (swapping them changes nothing)
COMMUTATIVE = frozenset({"add", "mul", "maximum", "minimum", "eq", "ne", "transpose", "swapaxes", "swapdims",
                         "logical_and", "logical_or", "logical_xor", "hypot", "allclose", "isclose", "equal",
                         "max", "min", "dot", "inner", "vdot"})


def _callee(node: cst.Call) -> str:
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return ""


def _int_value(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer)):
        return -int(expr.expression.value, 0)
    return None


def _int_node(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def _replace_arg(node: cst.Call, i: int, arg: cst.Arg) -> cst.Call:
    return node.with_changes(args=[*node.args[:i], arg, *node.args[i + 1:]])


def operator_dims(node: cst.Call) -> Iterable[cst.Call]:
    """A wrong axis: `dim=0` <-> `1` <-> `-1` (keywords anywhere, small positional ints of dim calls)."""
    dim_call = _callee(node) in DIM_CALLS
    for i, arg in enumerate(node.args):
        keyword = arg.keyword.value if arg.keyword else None
        if not (keyword in DIM_KEYWORDS or (keyword is None and dim_call and not arg.star)):
            continue
        value = _int_value(arg.value)
        if value is None or not -3 <= value <= 3:
            continue
        for other in (0, 1, -1, -2):
            if other != value and (other != -2 or value == -1):
                yield _replace_arg(node, i, arg.with_changes(value=_int_node(other)))


def operator_flags(node: cst.Call) -> Iterable[cst.Call]:
    """A flag forgotten or wrong: drop `keepdim=`/`retain_graph=`/`create_graph=`/... (the default
    is used), or add `keepdim=True` / `create_graph=True` / `retain_graph=True` where absent."""
    present = {a.keyword.value for a in node.args if a.keyword}
    for i, arg in enumerate(node.args):
        if arg.keyword and arg.keyword.value in FLAG_KEYWORDS:
            args = [*node.args[:i], *node.args[i + 1:]]
            if args and i == len(node.args) - 1:
                args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            yield node.with_changes(args=args)
    name = _callee(node)
    extra = []
    if name in KEEPDIM_CALLS and not ({"keepdim", "keepdims"} & present) and node.args:
        extra.append("keepdim")
    if name in GRAD_CALLS:
        extra += [k for k in ("retain_graph", "create_graph") if k not in present]
    for key in extra:
        args = list(node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        yield node.with_changes(args=[*args, cst.Arg(keyword=cst.Name(key), value=cst.Name("True"),
                                                       equal=cst.AssignEqual(
                                                           whitespace_before=cst.SimpleWhitespace(""),
                                                           whitespace_after=cst.SimpleWhitespace("")))])


def operator_drop_method(node: cst.Call) -> Iterable[cst.BaseExpression]:
    """A conversion or copy left out: `x.contiguous()`, `.detach()`, `.clone()`, `.to(...)`,
    `.item()`, `.cpu()`... become `x`."""
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in DROPPABLE_METHODS:
        yield node.func.value.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else node.func.value


def operator_swap_args(node: cst.Call) -> Iterable[cst.Call]:
    """Arguments in the wrong order: swap each pair of adjacent positional arguments."""
    if _callee(node) in COMMUTATIVE:
        return
    positional = [i for i, a in enumerate(node.args) if a.keyword is None and not a.star]
    for i, j in zip(positional, positional[1:]):
        a, b = node.args[i], node.args[j]
        if a.value.deep_equals(b.value):
            continue
        args = list(node.args)
        args[i], args[j] = a.with_changes(value=b.value), b.with_changes(value=a.value)
        yield node.with_changes(args=args)


def operator_inplace(node: cst.Call) -> Iterable[cst.Call]:
    """In-place <-> out-of-place: `x.add_(y)` <-> `x.add(y)` (a lost update, or an input mutated)."""
    if not isinstance(node.func, cst.Attribute):
        return
    name = node.func.attr.value
    if name.endswith("_") and not name.endswith("__") and name[:-1] in OUT_OF_PLACE_EXISTS:
        yield node.with_changes(func=node.func.with_changes(attr=cst.Name(name[:-1])))
    elif name in INPLACE_TWINS and isinstance(node.func.value, cst.Name | cst.Attribute | cst.Subscript):
        yield node.with_changes(func=node.func.with_changes(attr=cst.Name(name + "_")))


def operator_augassign_out_of_place(node: cst.AugAssign) -> Iterable[cst.Assign]:
    """`x += y` -> `x = x + y`: a new tensor instead of an in-place update (and vice versa is mutmut's)."""
    binary = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
              cst.DivideAssign: cst.Divide}.get(type(node.operator))
    if binary is not None:
        yield cst.Assign(targets=[cst.AssignTarget(node.target)],
                         value=cst.BinaryOperation(left=node.target, operator=binary(), right=node.value),
                         semicolon=node.semicolon)


def operator_drop_statement(node: cst.SimpleStatementLine) -> Iterable[cst.SimpleStatementLine]:
    """A step forgotten: `opt.zero_grad()`, `loss.backward()`, `x.grad.zero_()`, `raise ...` become `pass`."""
    if len(node.body) != 1:
        return
    stmt = node.body[0]
    drop = isinstance(stmt, cst.Raise)
    if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
        drop = _callee(stmt.value) in DROPPABLE_STATEMENTS
    if drop:
        yield node.with_changes(body=[cst.Pass()])


def _grad_mode_item(item: cst.WithItem) -> bool:
    call = item.item
    return isinstance(call, cst.Call) and _callee(call) in GRAD_MODES


def operator_drop_grad_mode(node: cst.With) -> Iterable[cst.CSTNode]:
    """`with torch.no_grad():` (or enable_grad / inference_mode) left out: its body runs bare."""
    if not any(_grad_mode_item(item) for item in node.items):
        return
    kept = [item for item in node.items if not _grad_mode_item(item)]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        yield node.with_changes(items=kept)
    elif isinstance(node.body, cst.IndentedBlock):
        yield cst.If(test=cst.Name("True"), body=node.body, leading_lines=node.leading_lines)


def operator_drop_decorator(node: cst.FunctionDef) -> Iterable[cst.FunctionDef]:
    """A decorator such as `@torch.no_grad()` or `@staticmethod` left out."""
    for i in range(len(node.decorators)):
        yield node.with_changes(decorators=[*node.decorators[:i], *node.decorators[i + 1:]])


TORCH_OPERATORS = [
    (cst.Call, operator_dims),
    (cst.Call, operator_flags),
    (cst.Call, operator_drop_method),
    (cst.Call, operator_swap_args),
    (cst.Call, operator_inplace),
    (cst.AugAssign, operator_augassign_out_of_place),
    (cst.SimpleStatementLine, operator_drop_statement),
    (cst.With, operator_drop_grad_mode),
    (cst.FunctionDef, operator_drop_decorator),
]

OPERATORS = [*MUTMUT_OPERATORS, *TORCH_OPERATORS]


def operator_name(function) -> str:
    """A short name for reports: `dims`, `drop_method`, mutmut's `swap_op`..."""
    return function.__name__.removeprefix("operator_")
