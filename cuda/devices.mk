# cuda/devices.mk (fragment)
