/* SPDX-License-Identifier: MIT */
/* stub: being written */
#include "harness/profile/flamegraph.h"
