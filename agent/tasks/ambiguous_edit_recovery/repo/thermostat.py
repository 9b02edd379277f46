"""Targets for the heating and the cooling, from the room's sensor reading."""


def heating_target(reading, low=18.0, high=22.0):
    """The reading kept within low and high; low when the sensor gives nothing."""
    if reading is None:
        return low
    return max(low, min(reading, high))


def cooling_target(reading, low=24.0, high=28.0):
    """The reading kept within low and high; high when the sensor gives nothing."""
    if reading is None:
        return low
    return max(low, min(reading, high))
