"""The LangGraph state machine: typed state, run settings, loop control and the builder."""
