"""Exercise checks for every chapter: `check_...` functions and `reveal(name)`.

Each chapter's checks and worked solutions live in `chNN.py` beside this file;
the names a notebook uses are imported here, so `from micrograd_lesson.exercises
import check_mul` works and a reader can see where each one comes from.
"""

from ._core import SOLUTIONS, Verdict, reveal
from .ch00 import (
    check_rsub,
    check_scalers,
    check_zip_prediction,
)
from .ch01 import (
    check_best_h,
    check_numerical_gradient,
    check_slope,
)
from .ch02 import (
    check_node_count,
    check_q,
    check_subtraction,
)
from .ch03 import (
    check_backprop_h,
    check_step_downhill,
    check_used_twice,
)
from .ch04 import (
    check_bfs_prediction,
    check_mul,
    check_run_backward,
    check_topological_order,
)
from .ch05 import (
    check_max,
    check_sin,
)
from .ch06 import (
    check_find_bugs,
    check_grad_check,
    check_numeric_derivative,
)
from .ch07 import (
    check_count_loss_nodes,
    check_leaky_neuron,
    check_widest_hidden,
)
from .ch08 import (
    check_clip_gradients,
    check_diagnosis,
    check_learning_rate,
    check_train_step,
)
from .ch09 import (
    check_bce_loss,
    check_sample_batch,
    check_squared_hinge_grads,
)
from .ch10 import (
    check_adam_constant_step,
    check_momentum_step,
    check_stability_limit,
)
from .ch11 import (
    check_quadratic_backward,
    check_recursive_visits,
    check_unbroadcast,
)
from .ch12 import (
    check_cross_entropy_grad,
    check_recall_precision,
)
from .ch13 import (
    check_cheaper_mode,
    check_dual_pow,
    check_reverse_rules,
    check_safe_newton_step,
)

__all__ = [
    "SOLUTIONS",
    "Verdict",
    "reveal",
    "check_rsub",
    "check_scalers",
    "check_zip_prediction",
    "check_slope",
    "check_best_h",
    "check_numerical_gradient",
    "check_subtraction",
    "check_q",
    "check_node_count",
    "check_backprop_h",
    "check_used_twice",
    "check_step_downhill",
    "check_topological_order",
    "check_run_backward",
    "check_mul",
    "check_bfs_prediction",
    "check_sin",
    "check_max",
    "check_numeric_derivative",
    "check_grad_check",
    "check_find_bugs",
    "check_widest_hidden",
    "check_leaky_neuron",
    "check_count_loss_nodes",
    "check_train_step",
    "check_learning_rate",
    "check_diagnosis",
    "check_clip_gradients",
    "check_squared_hinge_grads",
    "check_sample_batch",
    "check_bce_loss",
    "check_momentum_step",
    "check_stability_limit",
    "check_adam_constant_step",
    "check_unbroadcast",
    "check_quadratic_backward",
    "check_recursive_visits",
    "check_recall_precision",
    "check_cross_entropy_grad",
    "check_dual_pow",
    "check_cheaper_mode",
    "check_safe_newton_step",
    "check_reverse_rules",
]
