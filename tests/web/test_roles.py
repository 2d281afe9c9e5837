"""``Runtime.roles``: what a token hash makes its holder, looked up in an index of the seats'
hashes kept with the seat list it was read from (a new list, or one that changed length, is
read again)."""

from __future__ import annotations

from bobing.engine.presets import DEFAULT_RULES
from bobing.storage.event_store import Seat
from bobing.tables.runtime import Runtime
from tests.storage.storetools import table_info


def _runtime(seats: list[Seat]) -> Runtime:
    info = table_info(status="playing")
    return Runtime(info=info, rules=DEFAULT_RULES, seats=seats, status="playing", last_seq=1)


def test_a_seat_s_hash_names_its_player_and_the_host_s_the_host() -> None:
    runtime = _runtime([Seat("甲", 1, "a" * 64), Seat("乙", 2, "b" * 64)])
    roles = runtime.roles(["b" * 64, "h" * 64])
    assert (roles.players, roles.host, roles.play) == (("乙",), True, False)
    assert runtime.roles(["z" * 64]).anyone is False
    runtime.handed = {"甲"}
    handed = runtime.roles(["a" * 64])
    assert (handed.players, handed.handed) == ((), ("甲",))


def test_new_seats_are_read_again() -> None:
    runtime = _runtime([Seat("甲", 1, "a" * 64)])
    assert runtime.roles(["a" * 64]).players == ("甲",)
    runtime.seats = [Seat("乙", 1, "b" * 64)]  # how every commit changes them: a new list
    assert runtime.roles(["a" * 64]).anyone is False
    assert runtime.roles(["b" * 64]).players == ("乙",)
    runtime.seats.append(Seat("丙", 2, "c" * 64))  # in place, with another length: seen too
    assert runtime.roles(["c" * 64]).players == ("丙",)
    assert runtime.knows("b" * 64) and not runtime.knows("a" * 64)
