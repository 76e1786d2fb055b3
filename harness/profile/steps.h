/* SPDX-License-Identifier: MIT */
/* steps.h: being written */
#ifndef MAPLAB_PROFILE_STEPS_H
#define MAPLAB_PROFILE_STEPS_H
#endif
