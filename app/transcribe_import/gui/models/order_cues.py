"""A plan item's page-order cues (``ordering.find_ambiguities``), found once per item object.

The notebooks' badges, their pages' notes and the decision panel each ask for the same
item's cues; the first one finds them, the others read them here.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import PlanItem

# The last notebooks' page-order cues, each kept with the item it was found in (an item is
# frozen: the same object, the same cues). Finding them reads every name of a notebook (5 ms
# for 50 pages, 0.1 s for 1,000), and a plan shown asks for the same notebook's up to five
# times in one turn (its row's state, its pages' notes, the decisions panel, twice more for
# the two reports a new plan sends): each view asks here, the first one finds them.
_RECENT_CUES: collections.OrderedDict[str, tuple[PlanItem, list[ordering.Ambiguity]]] = (
    collections.OrderedDict()
)
_RECENT_CUES_KEPT = 8


def ambiguities_of(item: PlanItem) -> list[ordering.Ambiguity]:
    """``ordering.find_ambiguities(item)``, found once per item object (the list is shared:
    read it, do not change it)."""
    kept = _RECENT_CUES.get(item.item_id)
    if kept is not None and kept[0] is item:
        _RECENT_CUES.move_to_end(item.item_id)
        return kept[1]
    cues = ordering.find_ambiguities(item)
    _RECENT_CUES[item.item_id] = (item, cues)
    _RECENT_CUES.move_to_end(item.item_id)
    while len(_RECENT_CUES) > _RECENT_CUES_KEPT:
        _RECENT_CUES.popitem(last=False)
    return cues


def forget_replaced(shown: Callable[[str], PlanItem | None]) -> None:
    """A new plan is shown: the cues of the items it replaced go with them (``shown``: the
    item the new plan has under an id, None if none)."""
    for item_id, (item, _cues) in list(_RECENT_CUES.items()):
        if shown(item_id) is not item:
            del _RECENT_CUES[item_id]
