-- One database per service: each service owns its data and none reads another's tables.
CREATE DATABASE verification;
CREATE DATABASE testresult;
CREATE DATABASE submission;
CREATE DATABASE portal;
