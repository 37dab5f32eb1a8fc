# SPDX-License-Identifier: Apache-2.0
"""The culprit search of gv-fleet: which nodes to test together in each round, and what the
answers mean. Pure: it runs nothing. A caller asks `next_round()` for the disjoint groups to
test at once, runs them (each bounded by its deadline), and hands back one pass/fail per group
with `record()`, until `done`.

The search starts after the collective over all nodes failed (hung, wrong, or slow):
  1. screen: the nodes in groups of about sqrt(N) (2 to 32), contiguous in the order given, so
     that nodes listed by leaf switch are screened switch by switch. Members of a passing
     group are known good; members of a failing group are suspects.
  2. buddy: each suspect paired with a known-good node, all pairs at once. A pair that passes
     clears its suspect; one that fails condemns it once.
  3. confirm: each condemned node paired with a different good node. Failing twice with two
     good partners names it a culprit; passing makes the first failure a transient.
Rounds 2 and 3 run together for different nodes (a node is in one group per round). Where too
few good nodes exist, suspects pair with each other, new partners each round. A screen group
that failed while every member later passed with good partners is a link: what the group
shares (a switch port, a cable between two leaves) and not a node, once it fails again when
tested alone (else it was a transient). A failure that no group of
the screen shows (every group passes, the whole does not) is between the groups: the fabric
above them. The model is the OR-model of group testing: a group fails when any member or any
link inside it is bad.

Judged against each other (no floor), groups that are all slow alike all pass: a slow node in
each of them (two groups of three, one slow node in each; a tenth of a large fleet slow) hides
in the screen, also beside a group that failed (a hung node, a transient). So without a floor
the screen of groups is followed by a second one in pairs, judged against the best pair: a pair
that passes clears its nodes, a failing pair's nodes are suspects as a failing group's are, and
the node an odd count leaves out is tested with a good partner next."""
import math

MAX_GROUP = 32


def group_size(n):
    """The screen's group size for n nodes: about sqrt(n), 2 to MAX_GROUP."""
    return max(2, min(MAX_GROUP, math.ceil(math.sqrt(n))))


def pairs(nodes):
    """nodes in consecutive pairs, an odd last node left out."""
    return [tuple(nodes[k:k + 2]) for k in range(0, len(nodes) - 1, 2)]


def partition(nodes, size):
    """nodes in consecutive groups of `size` or `size + 1` (the remainder spread over the
    first groups), every group at least 2 long. Fewer than 2 * size nodes would make one group,
    which a screen judges only by itself: pairs then, an odd node left out (five nodes)."""
    count = len(nodes) // size
    if count < 2:
        return pairs(nodes)
    base, extra = divmod(len(nodes), count)
    groups, at = [], 0
    for k in range(count):
        n = base + (1 if k < extra else 0)
        groups.append(tuple(nodes[at:at + n]))
        at += n
    return groups


class Search:
    """One culprit search over `nodes` (names, in topology order where known). max_rounds
    bounds it: what is still unsettled then is reported undecided. relative: the groups are
    judged against each other (no floor), so a screen of groups is screened again in pairs."""

    def __init__(self, nodes, max_rounds=8, relative=False):
        if len(set(nodes)) != len(nodes):
            raise ValueError("a node is named twice")
        self.nodes = list(nodes)
        self.max_rounds = max_rounds
        self.relative = relative
        self.rounds = []  # [[(group, passed)]]
        self.good = set()
        self.suspects = []  # in node order: failed in a group, not yet tested with a good node
        self.condemned = {}  # node -> the good partner it failed with
        self.culprits = []  # (node, why)
        self.transient = []  # nodes that failed once with a good partner, then passed
        self.links = []  # screen groups that failed though every member is good
        self.tried = set()  # frozensets of suspect pairs already tested together
        self._screen = []
        self._pairs = None  # the second screen's pairs, once asked for
        self._pair_outcomes = []
        self._stalled = False
        self._link_check = None  # screen groups retested alone, when that round runs

    def _link_candidates(self):
        """Screen groups (and screen pairs) that failed while every member has since passed
        with good partners, none sharing a node (they are tested at once): of a failed pair
        inside a failed group, the pair, the narrower place."""
        if self.suspects or self.condemned or not self._screen:
            return []
        failed = [g for g, passed in self.rounds[0] + self._pair_outcomes
                  if not passed and all(n in self.good for n in g)]
        chosen = []
        for g in sorted(failed, key=len):
            if not any(set(g) & set(c) for c in chosen):
                chosen.append(g)
        return sorted(chosen, key=lambda g: self.nodes.index(g[0]))

    def _pairs_due(self):
        """The screen's groups were judged against each other: pairs tell what passing alike
        hid."""
        return (self.relative and self._pairs is None and len(self.rounds) == 1 and
                bool(self._screen) and any(len(g) > 2 for g in self._screen))

    def _failed_together(self, a, b):
        """a and b were in a group of the screen (or the pair screen) that failed, or failed as
        two suspects: a partner that cleared since is still no proof for the other (a link
        between them)."""
        return frozenset((a, b)) in self.tried or any(
            not passed and a in g and b in g for g, passed in self.rounds[0] + self._pair_outcomes)

    def _partner(self, node, free, other_than=None):
        """A good partner for node from free: one it never failed beside, else any."""
        fits = [g for g in free if g != other_than]
        return next((g for g in fits if not self._failed_together(node, g)),
                    fits[0] if fits else None)

    @property
    def done(self):
        if self._stalled or len(self.rounds) >= self.max_rounds:
            return True
        if not self.rounds or self.suspects or self.condemned or self._pairs_due():
            return False
        return self._link_check is not None or not self._link_candidates()

    @property
    def between_groups(self):
        """The search screened and named no node or link, nor left one undecided: every part
        passed alone (a part that failed once passed when tested again), so what failed the
        whole is between the groups."""
        return bool(self._screen and self.rounds and
                    not self.culprits and not self.links and not self.undecided)

    @property
    def undecided(self):
        """Nodes the search could not settle: still suspect or condemned once."""
        return sorted(set(self.suspects) | set(self.condemned), key=self.nodes.index)

    def next_round(self):
        """The disjoint groups to test at once now (tuples of node names); [] when done."""
        if self.done:
            return []
        if not self.rounds:
            if len(self.nodes) < 4:  # no two groups of two: every node is a suspect
                self.suspects = list(self.nodes)
            else:
                self._screen = partition(self.nodes, group_size(len(self.nodes)))
                return list(self._screen)
        if self._pairs_due():
            self._pairs = pairs(self.nodes)
            return list(self._pairs)
        if not self.suspects and not self.condemned:
            self._link_check = self._link_candidates()
            return list(self._link_check)
        free = sorted(self.good, key=self.nodes.index)
        groups = []
        # Confirmations first, each with a partner other than the first one.
        for node, first in self.condemned.items():
            partner = self._partner(node, free, other_than=first)
            if partner is not None:
                free.remove(partner)
                groups.append((node, partner))
        waiting = []
        for node in self.suspects:
            if free:
                partner = self._partner(node, free)
                free.remove(partner)
                groups.append((node, partner))
            else:
                waiting.append(node)
        # No good partner left: suspects test each other, a pairing not tried before.
        while len(waiting) >= 2:
            a = waiting.pop(0)
            b = next((s for s in waiting if frozenset((a, s)) not in self.tried), None)
            if b is None:
                continue
            waiting.remove(b)
            groups.append((a, b))
        if not groups:
            self._stalled = True  # nothing new can be tested: what is left stays undecided
        return groups

    def _tried_if_pair(self, group):
        """A failed pair is not paired again while its nodes are suspects."""
        if len(group) == 2:
            self.tried.add(frozenset(group))

    def record(self, outcomes):
        """outcomes: [(group, passed)] for the groups next_round() gave, in any order."""
        outcomes = [(tuple(g), bool(p)) for g, p in outcomes]
        self.rounds.append(outcomes)
        if len(self.rounds) == 1 and self._screen:
            screened = {n for g in self._screen for n in g}
            # A node the screen left out (an odd one beside pairs) is tested with a good one.
            self.suspects.extend(n for n in self.nodes if n not in screened)
            for group, passed in outcomes:
                if passed:
                    self.good.update(group)
                else:
                    self.suspects.extend(group)
                    self._tried_if_pair(group)
            self.suspects.sort(key=self.nodes.index)
            return
        if self._pairs is not None and len(self.rounds) == 2:
            self._pair_outcomes = outcomes
            suspects = set(self.suspects)
            for group, passed in outcomes:
                if passed:
                    suspects.difference_update(group)
                    self.good.update(group)
                else:
                    suspects.update(group)
                    self.good.difference_update(group)
                    self._tried_if_pair(group)
            # The node the pairs left out is known only by its screen group's figure.
            left_out = [n for n in self.nodes if not any(n in g for g in self._pairs)]
            suspects.update(left_out)
            self.good.difference_update(left_out)
            self.suspects = sorted(suspects, key=self.nodes.index)
            return
        if self._link_check is not None:
            self.links = [g for g, passed in outcomes if not passed]
            self.transient.extend(n for g, passed in outcomes if passed for n in g)
            return
        for group, passed in outcomes:
            a, b = group
            if a in self.condemned:
                first = self.condemned.pop(a)
                if passed:
                    self.good.add(a)
                    self.transient.append(a)
                else:
                    self.culprits.append((a, "failed with %s and with %s" % (first, b)))
            elif b in self.good:  # a suspect with a good partner
                self.suspects.remove(a)
                if passed:
                    self.good.add(a)
                else:
                    self.condemned[a] = b
            else:  # two suspects together
                self.tried.add(frozenset(group))
                if passed:
                    for n in group:
                        self.suspects.remove(n)
                        self.good.add(n)

    def summary(self):
        """A dict: the rounds with their groups, culprits, links, transients, undecided."""
        return {
            "rounds": [[{"nodes": list(g), "passed": p} for g, p in r] for r in self.rounds],
            "group_tests": sum(len(r) for r in self.rounds),
            "culprits": [{"node": n, "why": why} for n, why in self.culprits],
            "links": [list(g) for g in self.links],
            "between_groups": self.between_groups,
            "transient": list(dict.fromkeys(self.transient)),
            "undecided": self.undecided,
        }


def size_class(group):
    """Groups whose figures compare: pairs, and groups of three or more. NCCL runs a pair
    another way than a ring of many (on four H200s over sockets, pairs 0.6-0.7 GB/s where all
    four gave 2.8), so a pair is never judged by a larger group's figure."""
    return "pair" if len(group) == 2 else "group"


def judge(results, min_busbw=0.0, tolerance=0.5, reference=None):
    """Pass/fail for one round's group results [(group, verdict, busbw)]: a verdict other than
    PASS fails (wrong data, a hang, an error); so does busbw under min_busbw when it is set,
    else under tolerance times the reference of its size class: the best busbw seen so far in
    that class (this round's included), which assumes most groups are healthy. reference:
    {class: best} from the rounds before. Returns ([(group, passed)], the new reference)."""
    best = dict(reference or {})
    for group, verdict, busbw in results:
        if verdict == "PASS" and busbw:
            k = size_class(group)
            best[k] = max(best.get(k, 0.0), busbw)
    out = []
    for group, verdict, busbw in results:
        floor = min_busbw if min_busbw > 0 else tolerance * best.get(size_class(group), 0.0)
        out.append((group, verdict == "PASS" and (busbw or 0) >= floor))
    return out, best
