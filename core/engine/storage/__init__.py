"""Finished runs kept: checked in full and signed before they are shown, on disk or in memory."""
