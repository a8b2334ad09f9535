"""A plan item's page-order cues (``ordering.find_ambiguities``), found once per item object.

The notebooks' badges, their pages' notes and the decision panel each ask for the same
item's cues; the first one finds them, the others read them here. A notebook's badge is
checked on a worker (``orders_checked``): reading every name of a 5,000-page notebook is
0.25 s of Python, and on the window's thread, beside a validation, it left the window
unanswered for 1.5 s (bench/bench_gui_shelf.py).
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.planning.problems import ValidationReport

# The last notebooks' page-order cues, each kept with the item it was found in (an item is
# frozen: the same object, the same cues). Finding them reads every name of a notebook (5 ms
# for 50 pages, 0.1 s for 1,000), and a plan shown asks for the same notebook's up to five
# times in one turn (its row's state, its pages' notes, the decisions panel, twice more for
# the two reports a new plan sends): each view asks here, the first one finds them.
_RECENT_CUES: collections.OrderedDict[str, tuple[PlanItem, list[ordering.Ambiguity]]] = (
    collections.OrderedDict()
)
_RECENT_CUES_KEPT = 8
# The most files of a notebook whose cues a view finds on the window's thread when no report
# tells them: a few ms, where 500 files were 50-130 ms as a plan was shown beside the
# workers (bench/bench_gui_shelf.py), 5,000 files 0.25 s on a quiet core.
CHECKED_HERE_AT_MOST = 100


def ambiguities_of(
    item: PlanItem, report: ValidationReport | None = None
) -> list[ordering.Ambiguity]:
    """``ordering.find_ambiguities(item)``, found once per item object (the list is shared:
    read it, do not change it). ``report``: the session's, of the plan as it stands (looks
    stamped since change no order), which told them already: read from it, no name read.
    Without one, a notebook of more than ``CHECKED_HERE_AT_MOST`` files not checked yet
    has none until its report comes."""
    if report is not None:
        return ordering.ambiguities_told(report, item.item_id)
    kept = _RECENT_CUES.get(item.item_id)
    if kept is not None and kept[0] is item:
        _RECENT_CUES.move_to_end(item.item_id)
        return kept[1]
    if len(item.sources) > CHECKED_HERE_AT_MOST:
        # Left to the report: the plan is validated 0.3 s after it is shown or edited, and
        # the views ask again when it comes (the notebook's badge says "Checking…" till then).
        return []
    cues = ordering.find_ambiguities(item)
    remember(item, cues)
    return cues


def remember(item: PlanItem, cues: list[ordering.Ambiguity]) -> None:
    """Keep cues found elsewhere (a worker's ``orders_checked``) for ``item``."""
    _RECENT_CUES[item.item_id] = (item, cues)
    _RECENT_CUES.move_to_end(item.item_id)
    while len(_RECENT_CUES) > _RECENT_CUES_KEPT:
        _RECENT_CUES.popitem(last=False)


def orders_checked(
    items: tuple[PlanItem, ...],
) -> tuple[tuple[PlanItem, list[ordering.Ambiguity]], ...]:
    """Each item with its page-order cues (run on a worker: it reads every name)."""
    return tuple((item, ordering.find_ambiguities(item)) for item in items)


def forget_replaced(shown: Callable[[str], PlanItem | None]) -> None:
    """A new plan is shown: the cues of the items it replaced go with them (``shown``: the
    item the new plan has under an id, None if none)."""
    for item_id, (item, _cues) in list(_RECENT_CUES.items()):
        if shown(item_id) is not item:
            del _RECENT_CUES[item_id]
