"""Rows between ranks (fe_rodcontact.mpi_rows) and contacts as rows.

Source: what each rank sends is a known function of (sender, receiver), so every rank can
check what it received exactly (floats travel bit for bit; integers below 2⁵³ and flags
exactly as float64). Empty messages (a rank with nothing for another) are included.
"""

import numpy as np

from fe_rodcontact.contact.detection import RawContacts
from fe_rodcontact.mpi_rows import exchange_rows, gather_rows


def _rows(sender: int, receiver: int, width: int) -> np.ndarray:
    """What ``sender`` sends ``receiver``: (sender + 2·receiver) mod 3 rows, distinct values."""
    count = (sender + 2 * receiver) % 3
    return (1000 * sender + 100 * receiver + np.arange(count * width)).reshape(count, width) / 7


def test_exchange_rows_delivers_each_ranks_rows(comm):
    width = 12
    outgoing = [_rows(comm.rank, q, width).reshape(-1, 4, 3) for q in range(comm.size)]
    incoming = exchange_rows(comm, outgoing, width)
    assert len(incoming) == comm.size
    for q, rows in enumerate(incoming):
        assert np.array_equal(rows, _rows(q, comm.rank, width))


def test_gather_rows_stacks_every_ranks_rows_in_rank_order(comm):
    mine = _rows(comm.rank, comm.rank, 5)
    gathered = gather_rows(comm, mine)
    expected = np.concatenate([_rows(q, q, 5) for q in range(comm.size)])
    assert gathered.shape == expected.shape
    assert np.array_equal(gathered, expected)


def test_contacts_survive_the_round_trip_through_rows():
    rng = np.random.default_rng(3)
    template = RawContacts.empty()
    values = []
    for name in RawContacts.fields():
        shape = (4, *getattr(template, name).shape[1:])
        dtype = getattr(template, name).dtype
        if dtype.kind == "b":
            values.append(rng.random(shape) > 0.5)
        elif dtype.kind == "i":
            values.append(rng.integers(-1, 2**40, shape))
        else:
            values.append(rng.normal(size=shape))
    contacts = RawContacts(*values)
    back = RawContacts.from_rows(contacts.as_rows())
    for name in RawContacts.fields():
        assert getattr(back, name).dtype == getattr(contacts, name).dtype
        assert np.array_equal(getattr(back, name), getattr(contacts, name))
    assert len(RawContacts.from_rows(RawContacts.empty().as_rows())) == 0
