"""Report sections: each module builds one section from a RunData."""
