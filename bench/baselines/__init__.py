"""The rules Threadline's handoffs are graded against (bench/fidelity.py): T3 Code's
`selectHistory`, re-implemented from its published source, and a naive "last messages
that fit". Each is a pure function of a conversation (`conversation.Message`) and a
budget, answering which messages it keeps whole."""
