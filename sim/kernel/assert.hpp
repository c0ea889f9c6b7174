// The always-on assertions (SIM_ASSERT, SIM_ASSERT_EQ, ...) live beside the port, where lock code
// can use them too; the simulator's code keeps including them by this name.
#pragma once

#include "lock_impls/port/assert.hpp"
