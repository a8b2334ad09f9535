"""Page order of a plan item: the proposed natural order, its ambiguities, and their resolutions.

The contract (import runs, "Ordering ambiguity") lets natural sort be the *proposed*
order only. Anything a person could reasonably read two ways is reported by
``find_ambiguities`` as a value with a code, the item and the sources it concerns,
and stays a validate error until a person resolves it with one of the operations
below. Each resolution is recorded in the plan (``PlanItem.ordering`` and the
sources' order and ``excluded`` flags), so it is fingerprinted and survives a
reload. Pure functions over the frozen plan dataclasses: no I/O, no Qt.

By job: ``names`` reads what a file's name says (numbering schemes, the proposed
order), ``duplex`` tells two passes of a duplex scan, ``checks`` finds the ambiguities,
``resolve`` holds the edits that settle them. The faces and the rest of the engine use
this package's names only, not its modules.
"""

from __future__ import annotations

from transcribe_import.engine.base.text import natural_key
from transcribe_import.engine.planning.ordering.checks import (
    RESOLUTIONS,
    Ambiguity,
    ambiguities_told,
    find_ambiguities,
)
from transcribe_import.engine.planning.ordering.duplex import Passes, duplex_passes
from transcribe_import.engine.planning.ordering.names import (
    COVER_NAMES,
    copy_of,
    is_cover_name,
    page_label,
    page_number,
    propose_order,
    proposed_rule,
)
from transcribe_import.engine.planning.ordering.resolve import (
    NothingToOrderBy,
    accept,
    exclude,
    include,
    interleave,
    move,
    order_by,
    sequence,
    source_by_name,
    verso_first,
    versos_blank,
)
from transcribe_import.engine.planning.problems import AmbiguityCode

__all__ = [
    "COVER_NAMES",
    "RESOLUTIONS",
    "Ambiguity",
    "AmbiguityCode",
    "NothingToOrderBy",
    "Passes",
    "accept",
    "copy_of",
    "duplex_passes",
    "exclude",
    "ambiguities_told",
    "find_ambiguities",
    "include",
    "interleave",
    "is_cover_name",
    "move",
    "natural_key",
    "order_by",
    "page_label",
    "page_number",
    "propose_order",
    "proposed_rule",
    "sequence",
    "source_by_name",
    "verso_first",
    "versos_blank",
]
